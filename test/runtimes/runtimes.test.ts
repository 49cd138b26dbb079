/**
 * The runtimes the README names, for real: the package a fresh clone packs, installed by npm
 * into an empty project with Zod, serves one app (app/server.mjs: a tool with a plain JSON
 * Schema, one with Zod) through `createFetchHandler` in Cloudflare's workerd (through
 * miniflare), in Bun (`Bun.serve`) and in Deno (`Deno.serve`), each started from its npm
 * package on 127.0.0.1. The official SDK's v2 client (2026-07-28) and v1 client (2025-11-25)
 * drive each; the Janus client runs on Bun and Deno too (app/client.mjs). workerd refuses code
 * generation, so the plain JSON Schema is validated there by the interpreting engine, with the
 * same message for bad arguments as everywhere.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { Client as SdkClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as SdkV1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as SdkV1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Miniflare } from 'miniflare';
import { makeProject, packFreshClone, root, run } from '../package/support.js';
import { until } from '../support/wait.js';

const work = mkdtempSync(join(tmpdir(), 'janus-mcp-runtimes-'));
const project = join(work, 'project');
const BIN = join(root, 'node_modules', '.bin');
/** No update checks, prompts or telemetry: the runtimes reach nothing but loopback. */
const QUIET_ENV = { ...process.env, DENO_NO_UPDATE_CHECK: '1', DENO_NO_PROMPT: '1', DO_NOT_TRACK: '1', NO_COLOR: '1' };

before(async () => {
  const packed = await packFreshClone(work);
  await makeProject(project, packed.tarball, ['zod']);
  const app = join(root, 'test', 'runtimes', 'app');
  for (const file of readdirSync(app)) copyFileSync(join(app, file), join(project, file));
});
after(() => rmSync(work, { recursive: true, force: true }));

const RAW_REFUSAL = 'error: Invalid arguments for tool add: /a must be number';
const text = (r: { content?: unknown; isError?: unknown }) =>
  `${r.isError ? 'error: ' : ''}${((r.content ?? []) as Array<{ text?: string }>).map((c) => c.text ?? '').join('')}`;

/** The official v2 client pinned to 2026-07-28, and the v1 client (2025-11-25): tools listed, called well and badly. */
async function driveWithSdks(url: URL): Promise<void> {
  const v2 = new SdkClient({ name: 'sdk-v2', version: '2.4.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  const v2Transport = new StreamableHTTPClientTransport(url);
  await v2.connect(v2Transport);
  const v1 = new SdkV1Client({ name: 'sdk-v1', version: '1.32.2' });
  const v1Transport = new SdkV1Transport(url);
  await v1.connect(v1Transport);
  try {
    assert.equal(v2Transport.protocolVersion, '2026-07-28');
    assert.equal(v1Transport.protocolVersion, '2025-11-25');
    for (const call of [
      (name: string, args: Record<string, unknown>) => v2.callTool({ name, arguments: args }),
      (name: string, args: Record<string, unknown>) =>
        v1.callTool({ name, arguments: args }) as Promise<{ content?: unknown; isError?: unknown }>,
    ]) {
      assert.equal(text(await call('add', { a: 2, b: 3 })), '5');
      assert.equal(text(await call('add', { a: 'two', b: 3 })), RAW_REFUSAL);
      assert.equal(text(await call('greet', { name: 'Ada' })), 'hello Ada');
      assert.match(text(await call('greet', {})), /^error: Invalid arguments for tool greet: /);
    }
    assert.deepEqual((await v2.listTools()).tools.map((t) => t.name).sort(), ['add', 'greet']);
    assert.deepEqual((await v1.listTools()).tools.map((t) => t.name).sort(), ['add', 'greet']);
  } finally {
    await v2.close();
    await v1.close();
  }
}

/** The Janus client run by a runtime's command against `url`, at a revision; what it reported. */
async function janusClientOn(command: string[], url: URL, revision: string): Promise<void> {
  const { stdout } = await run(command[0]!, [...command.slice(1), url.href, revision], { cwd: project, env: QUIET_ENV });
  const report = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
  assert.deepEqual(report, {
    era: revision === '2026-07-28' ? 'modern' : 'legacy',
    protocolVersion: revision,
    tools: ['add', 'greet'],
    sum: '5',
    badSum: RAW_REFUSAL,
    greeting: 'hello Ada',
    badGreeting: report.badGreeting,
  });
  assert.match(String(report.badGreeting), /^error: Invalid arguments for tool greet: /);
}

/** Starts a runtime's server command and reads the URL it prints. */
async function serveWith(command: string[]): Promise<{ url: URL; child: ChildProcess; stop(): Promise<void> }> {
  const child = spawn(command[0]!, command.slice(1), { cwd: project, env: QUIET_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let gone = false;
  void exited.then(() => (gone = true));
  const m = await until(
    () => {
      if (gone) assert.fail(`${command.join(' ')} exited before listening:\n${out}\n${err}`);
      return /listening on (http:\/\/\S+)/.exec(out);
    },
    `${command[0]} to print its URL`,
    60_000,
  );
  return {
    url: new URL('mcp', m[1]!),
    child,
    async stop() {
      if (!gone) child.kill('SIGTERM');
      await exited;
      assert.doesNotMatch(err, /not a valid JSON Schema|Code generation/i, 'nothing refused on stderr');
    },
  };
}

describe('Cloudflare workerd (miniflare)', () => {
  test('the fetch handler as a module worker: a plain JSON Schema tool and a Zod tool, both SDK clients', {
    timeout: 180_000,
  }, async () => {
    const bundled = join(project, 'worker.bundle.mjs');
    // As wrangler does: one ES module, resolved with the conditions of workerd.
    const esbuild = await import('esbuild');
    await esbuild.build({
      absWorkingDir: project,
      entryPoints: ['worker.mjs'],
      outfile: bundled,
      bundle: true,
      format: 'esm',
      platform: 'browser',
      conditions: ['workerd', 'worker', 'browser'],
      logLevel: 'silent',
    });
    const logs: string[] = [];
    const mf = new Miniflare({
      modules: true,
      modulesRoot: project,
      scriptPath: bundled,
      compatibilityDate: '2026-07-01',
      host: '127.0.0.1',
      port: 0,
      cf: false,
      handleRuntimeStdio: (stdout: Readable, stderr: Readable) => {
        stdout.setEncoding('utf8').on('data', (c: string) => logs.push(c));
        stderr.setEncoding('utf8').on('data', (c: string) => logs.push(c));
      },
    });
    try {
      const url = new URL('mcp', await mf.ready);
      await driveWithSdks(url);
      assert.doesNotMatch(logs.join(''), /not a valid JSON Schema|Code generation/i, 'nothing refused in the worker');
    } finally {
      await mf.dispose();
    }
  });
});

describe('Bun', () => {
  test('Bun.serve with the fetch handler: both SDK clients; the Janus client on Bun, in both eras', { timeout: 180_000 }, async () => {
    const server = await serveWith([join(BIN, 'bun'), 'run', 'bun.mjs']);
    try {
      await driveWithSdks(server.url);
      for (const revision of ['2026-07-28', '2025-11-25'])
        await janusClientOn([join(BIN, 'bun'), 'run', 'client.mjs'], server.url, revision);
    } finally {
      await server.stop();
    }
  });
});

describe('Deno', () => {
  const deno = (script: string) => [join(BIN, 'deno'), 'run', '--allow-net=127.0.0.1', '--allow-env', '--allow-read', script];
  test('Deno.serve with the fetch handler: both SDK clients; the Janus client on Deno, in both eras', { timeout: 180_000 }, async () => {
    const server = await serveWith(deno('deno.mjs'));
    try {
      await driveWithSdks(server.url);
      for (const revision of ['2026-07-28', '2025-11-25']) await janusClientOn(deno('client.mjs'), server.url, revision);
    } finally {
      await server.stop();
    }
  });
});
