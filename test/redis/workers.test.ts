/**
 * Several worker processes on one machine: test/fixtures/workers/main.js under
 * `node:cluster`, WORKERS=2 on one PORT and one REDIS_URL. New connections reach both workers,
 * so an input_required round whose first call and retry each go over a fresh connection lands
 * on two workers; it completes every time only because the workers share the sealing key and
 * the one-time-use records on Redis. A worker that dies is replaced; SIGTERM to the primary
 * drains every worker and the primary exits 0, leaving none behind.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { HttpPeer } from '../http-e2e/support.js';
import { MODERN } from '../support/common.js';
import { until } from '../support/wait.js';
import { freePort, startRedis, type RedisServer } from './support.js';

/** test/fixtures/workers/main.js in the compiled tree (test/redis/ → the dist root). */
const WORKERS_MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'workers', 'main.js');
const CAPS = { elicitation: { form: {} } };
const TOOL = 'test_input_required_result_elicitation';
const START_MS = 15_000;

let redis: RedisServer;
before(async () => {
  redis = await startRedis();
});
after(async () => {
  await redis?.stop();
});

interface Workers {
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stdout(): string;
  stderr(): string;
  /** The workers that logged "listening", in order (replacements included). */
  listening(): Array<{ pid: number; url: URL }>;
}

function startWorkers(env: Record<string, string>): Workers {
  const child = spawn(process.execPath, [WORKERS_MAIN], {
    env: { ...process.env, HOST: '127.0.0.1', JANUS_STATE_SECRET: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    exited,
    stdout: () => stdout,
    stderr: () => stderr,
    listening: () =>
      [...stderr.matchAll(/janus-everything worker (\d+) listening on (http:\/\/\S+)/g)].map((m) => ({
        pid: Number(m[1]),
        url: new URL(m[2]!),
      })),
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** One input_required round: the first call and its retry, each on its own connection. */
async function roundTrip(url: URL, name: string): Promise<void> {
  const peer = new HttpPeer(url, MODERN);
  const first = await peer.modern('tools/call', { name: TOOL, arguments: {} }, { caps: CAPS });
  const round = first.messages[0]!.result;
  assert.equal(round?.resultType, 'input_required', JSON.stringify(first.messages));
  const retry = {
    name: TOOL,
    arguments: {},
    requestState: round.requestState,
    inputResponses: { user_name: { action: 'accept', content: { name } } },
  };
  const done = await peer.modern('tools/call', retry, { caps: CAPS });
  assert.deepEqual(done.messages[0]!.result?.content, [{ type: 'text', text: `Hello, ${name}!` }], JSON.stringify(done.messages));
}

/**
 * Whether new connections reach more than one worker: test_trigger_tool_change adds
 * test_dynamic_tool to the one worker that runs it, so `tools/list` over fresh connections
 * then answers with it from that worker and without it from the others.
 */
async function answeredByMoreThanOneWorker(url: URL): Promise<boolean> {
  const peer = new HttpPeer(url, MODERN);
  await peer.modern('tools/call', { name: 'test_trigger_tool_change', arguments: {} });
  const seen = new Set<boolean>();
  for (let i = 0; i < 10 && seen.size < 2; i++) {
    const list = await peer.modern('tools/list', {});
    const tools = list.messages[0]!.result?.tools as Array<{ name: string }>;
    seen.add(tools.some((t) => t.name === 'test_dynamic_tool'));
  }
  return seen.size === 2;
}

test('two workers on one port and one Redis: both answer, every round trip completes, a dead worker is replaced, SIGTERM drains all', {
  timeout: 60_000,
}, async () => {
  const port = await freePort();
  const workers = startWorkers({ ...redis.env, PORT: String(port), WORKERS: '2' });
  try {
    const [a, b] = await until(() => workers.listening().length >= 2 && workers.listening(), 'two workers listening', START_MS);
    assert.notEqual(a!.pid, b!.pid);
    assert.equal(a!.url.href, `http://127.0.0.1:${port}/mcp`);
    assert.equal(b!.url.href, a!.url.href, 'both workers on the one port');
    const url = a!.url;

    assert.ok(await answeredByMoreThanOneWorker(url), 'fresh connections reach both workers');
    for (let i = 0; i < 20; i++) await roundTrip(url, `Ada ${i}`);

    process.kill(a!.pid, 'SIGKILL');
    const replacement = await until(() => workers.listening()[2], 'a replacement worker listening', START_MS);
    assert.ok(![a!.pid, b!.pid].includes(replacement.pid));
    assert.equal(replacement.url.href, url.href);
    assert.match(workers.stderr(), new RegExp(`worker ${a!.pid} exited \\(SIGKILL\\); starting another`));
    for (let i = 0; i < 20; i++) await roundTrip(url, `Grace ${i}`);

    workers.child.kill('SIGTERM');
    assert.deepEqual(await workers.exited, { code: 0, signal: null }, workers.stderr());
    for (const { pid } of workers.listening()) assert.equal(alive(pid), false, `worker ${pid} is gone`);
    assert.equal(workers.stdout(), '', 'nothing on stdout');
  } finally {
    workers.child.kill('SIGKILL');
    for (const { pid } of workers.listening()) if (alive(pid)) process.kill(pid, 'SIGKILL');
  }
});

test('without REDIS_URL the workers example refuses to start, naming what to set', { timeout: 20_000 }, async () => {
  const workers = startWorkers({ PORT: String(await freePort()), WORKERS: '2', REDIS_URL: '' });
  assert.deepEqual(await workers.exited, { code: 1, signal: null });
  assert.match(workers.stderr(), /set REDIS_URL/);
  assert.deepEqual(workers.listening(), []);
});

test('with an unreachable REDIS_URL the workers example fails fast: exit 1, the reason, no restart loop', { timeout: 20_000 }, async () => {
  const workers = startWorkers({ PORT: String(await freePort()), WORKERS: '2', REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
  try {
    assert.deepEqual(await workers.exited, { code: 1, signal: null });
    assert.match(workers.stderr(), /Cannot reach Redis at redis:\/\/127\.0\.0\.1:\d+ /);
    assert.match(workers.stderr(), /exited \(1\) before listening; stopping/);
    assert.doesNotMatch(workers.stderr(), /starting another/);
  } finally {
    workers.child.kill('SIGKILL');
  }
});
