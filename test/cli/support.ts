/**
 * The `janus-mcp` command as a user runs it: the published (bundled) `node dist/bundle/cli/main.js …`
 * as a child process,
 * against the everything fixture (test/fixtures/everything) over HTTP on 127.0.0.1 and over stdio.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXAMPLE_MAIN } from '../fuzz/stdio-channel.js';
import { exited } from '../support/example-process.js';
import { until } from '../support/wait.js';

export const CLI_MAIN = fileURLToPath(new URL('../../bundle/cli/main.js', import.meta.url));
/** The fixture over stdio, as a TARGET command line. */
export const STDIO_TARGET = `${process.execPath} ${EXAMPLE_MAIN} --stdio`;
/** The server entry the fixture modules of `serve` and `dev` import (the command's own copy). */
export const SERVER_ENTRY = new URL('../../bundle/server/index.js', import.meta.url).href;

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the command to its end; `input` is written to its stdin (then closed). */
export async function runCli(args: string[], options: { input?: string; env?: Record<string, string> } = {}): Promise<Finished> {
  const child = spawn(process.execPath, [CLI_MAIN, ...args], {
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  child.stdin!.on('error', () => {});
  child.stdin!.end(options.input ?? '');
  const code = await exited(child);
  return { code, stdout, stderr };
}

/** A long-running command (serve, dev, proxy), its output collected as it comes. */
export interface Running {
  readonly child: ChildProcess;
  readonly exit: Promise<number | null>;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first http URL after "listening on" on stderr. */
  url(): Promise<URL>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

export function startCli(args: string[]): Running {
  const child = spawn(process.execPath, [CLI_MAIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exit = exited(child);
  let ended = false;
  void exit.then(() => (ended = true));
  return {
    child,
    exit,
    stdout: () => out,
    stderr: () => err,
    async url() {
      const m = await until(
        () => {
          if (ended) assert.fail(`the command exited before listening: ${err}`);
          return /listening on (http:\/\/\S+)/.exec(err);
        },
        'the command to print its URL',
        20_000,
      );
      return new URL(m[1]!);
    },
    async stop() {
      if (!ended) child.kill('SIGTERM');
      return exit;
    },
  };
}

/** A temporary folder for fixture modules and answer files. */
export function scratch(): string {
  return mkdtempSync(join(tmpdir(), 'janus-mcp-cli-'));
}

/** Writes a server module exporting a server with these tools (name → text it returns); it also logs to stdout on import. */
export function writeServerModule(
  file: string,
  tools: Record<string, string>,
  exportAs: 'default' | 'server' | 'factory' = 'default',
): void {
  const lines = [
    `import { createServer } from ${JSON.stringify(SERVER_ENTRY)};`,
    "console.log('a log line from the module');",
    'function build() {',
    "  const server = createServer({ name: 'cli-fixture', version: '1.0.0' });",
    ...Object.entries(tools).map(
      ([name, text]) =>
        `  server.tool(${JSON.stringify(name)}, { description: ${JSON.stringify(`returns ${text}`)} }, () => ${JSON.stringify(text)});`,
    ),
    '  return server;',
    '}',
    exportAs === 'default'
      ? 'export default build();'
      : exportAs === 'server'
        ? 'export const server = build();'
        : 'export default async () => build();',
  ];
  writeFileSync(file, `${lines.join('\n')}\n`);
}
