/**
 * `janus-mcp install` as a user runs it: the bundled command as a child process, with HOME,
 * APPDATA and XDG_CONFIG_HOME pointing into a temporary folder (so no real host's file is
 * touched) and a project folder of its own as the working folder.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { type Client, connect } from '../../../src/client/index.js';
import { exited } from '../../support/example-process.js';
import { CLI_MAIN, type Finished, SERVER_ENTRY, scratch } from '../support.js';

const STDIO_ENTRY = new URL('../../../bundle/stdio/index.js', import.meta.url).href;

/** A user's machine in a temporary folder: a home, Windows' APPDATA, XDG_CONFIG_HOME and a project. */
export interface Machine {
  readonly root: string;
  readonly home: string;
  readonly appData: string;
  readonly xdg: string;
  readonly project: string;
}

export function machine(): Machine {
  const root = scratch();
  const m = { root, home: join(root, 'home'), appData: join(root, 'appdata'), xdg: join(root, 'xdg'), project: join(root, 'project') };
  for (const dir of [m.home, m.appData, m.xdg, m.project]) mkdirSync(dir, { recursive: true });
  return m;
}

/** Runs `janus-mcp install …` in the machine's project folder. */
export async function install(m: Machine, args: string[]): Promise<Finished> {
  const env: Record<string, string | undefined> = { ...process.env, HOME: m.home, APPDATA: m.appData, XDG_CONFIG_HOME: m.xdg };
  delete env.USERPROFILE;
  const child = spawn(process.execPath, [CLI_MAIN, 'install', ...args], { cwd: m.project, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const code = await exited(child);
  return { code, stdout, stderr };
}

/** Runs it and expects success. */
export async function installed(m: Machine, args: string[]): Promise<Finished> {
  const r = await install(m, args);
  assert.equal(r.code, 0, `install ${args.join(' ')} failed: ${r.stderr}`);
  return r;
}

export function readJson(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
}

/** The value at `keys` inside a parsed file. */
export function at(value: unknown, keys: readonly string[]): unknown {
  let here = value;
  for (const key of keys) {
    assert.ok(typeof here === 'object' && here !== null && Object.hasOwn(here, key), `no "${key}" in ${JSON.stringify(here)}`);
    here = (here as Record<string, unknown>)[key];
  }
  return here;
}

/**
 * A stdio server script in the project folder, with a package.json naming it `@acme/weather-mcp`:
 * its tool `greeting` returns the GREETING variable of its environment.
 */
export function writeStdioServer(m: Machine, file = 'server.mjs'): string {
  const path = join(m.project, file);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(join(m.project, 'package.json'), JSON.stringify({ name: '@acme/weather-mcp', version: '1.0.0', type: 'module' }));
  writeFileSync(
    path,
    [
      `import { createServer } from ${JSON.stringify(SERVER_ENTRY)};`,
      `import { serveStdio } from ${JSON.stringify(STDIO_ENTRY)};`,
      "const server = createServer({ name: 'install-fixture', version: '1.0.0' });",
      "server.tool('greeting', { description: 'returns GREETING' }, () => process.env.GREETING ?? 'no GREETING');",
      'await serveStdio(server);',
      '',
    ].join('\n'),
  );
  return path;
}

/**
 * Starts a written entry as a host would: its command and args, its env over the host's own, from
 * another working folder; then connects a Janus client to it. `node` is found on PATH.
 */
export async function startEntry(entry: unknown, elsewhere: string): Promise<Client> {
  const { command, args, env } = entry as { command: string; args: string[]; env?: Record<string, string> };
  const path = `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`;
  return connect({ command, args, env: { ...process.env, PATH: path, ...env }, cwd: elsewhere, stderr: 'ignore' });
}
