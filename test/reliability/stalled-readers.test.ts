/**
 * Nothing piles up for a reader that stops reading. Real processes and sockets on 127.0.0.1:
 * twenty `subscriptions/listen` streams whose client holds its sockets but reads nothing, then
 * 100,000 list changes; the server's resident memory (as a user sees it, no forced GC) grows
 * by less than 10 MB, the stalled streams are closed, and a client that reads receives every
 * event, in order, once. A client whose user never reads its listen stream retains no more
 * than its queue's bound. Over stdio, a client that stops reading stdout stops the server reading stdin (its
 * answers wait, bounded), and gets every answer, in order, once it reads.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type net from 'node:net';
import { test } from 'node:test';
import { type Client, connect } from '../../src/client/index.js';
import { fixture } from '../support/common.js';
import { exited } from '../support/example-process.js';
import { modernMeta } from '../support/peer.js';
import { stalledRequest } from '../support/stalled-socket.js';
import { until } from '../support/wait.js';

const SERVER = fixture('backpressure', 'churn-server.js');
const MB = 1024 * 1024;
const ALL_LISTS = { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true };
const KINDS = ['tools', 'prompts', 'resources'];
const text = (r: { content: unknown }) => (r.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('');

async function startHttp(): Promise<{ child: ChildProcess; url: URL; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  const m = await until(() => /listening on (\S+)/.exec(out), 'the server to listen', 20_000);
  return {
    child,
    url: new URL(m[1]!),
    async stop() {
      child.kill('SIGTERM');
      await exited(child);
    },
  };
}

/** A listen stream opened on a raw socket, then never read again once acknowledged (the client "stopped"). */
async function stalledListen(url: URL, id: string): Promise<net.Socket> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'subscriptions/listen',
    params: { notifications: ALL_LISTS, _meta: modernMeta() },
  });
  const head =
    `POST ${url.pathname} HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
    'MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\n';
  const { socket } = await stalledRequest(Number(url.port), head, body, (r) => r.includes('notifications/subscriptions/acknowledged'));
  return socket;
}

/** A client that reads: every list_changed of its listen stream, in arrival order. */
function reader(client: Client, signal: AbortSignal): { events: string[]; done: Promise<void> } {
  const events: string[] = [];
  const done = (async () => {
    for await (const n of client.listen(ALL_LISTS, { signal })) events.push(n.method.split('/')[1]!);
  })();
  return { events, done };
}

const rssOf = async (client: Client) => Number(text(await client.callTool('rss', {})));
const streamsOf = async (client: Client) => Number(text(await client.callTool('streams', {})));

test('twenty stalled listen streams and 100,000 changes: RSS grows < 10 MB; a reading client gets every event once, in order', {
  timeout: 300_000,
}, async () => {
  const server = await startHttp();
  const client = await connect(server.url.href, { protocolVersion: '2026-07-28', maxQueuedNotifications: 1_000_000 });
  const stop = new AbortController();
  const stalled: net.Socket[] = [];
  const read = reader(client, stop.signal);
  try {
    await until(async () => (await streamsOf(client)) === 1, "the reader's stream open");
    for (let i = 0; i < 20; i++) stalled.push(await stalledListen(server.url, `stalled-${i}`));
    assert.equal(await streamsOf(client), 21);
    // Warm up (code compiled, buffers sized) with the stalled streams in place, then measure.
    await client.callTool('churn', { count: 3_000 });
    await until(() => read.events.length === 3_000, 'the warm-up events read', 60_000);
    const before = await rssOf(client);

    assert.equal(text(await client.callTool('churn', { count: 100_000 }, { timeoutMs: 240_000 })), '100000 changes');
    await until(() => read.events.length >= 103_000, 'every event read', 120_000);
    const after = await rssOf(client);

    assert.ok(after - before < 10 * MB, `RSS grew by ${((after - before) / MB).toFixed(1)} MB (from ${(before / MB).toFixed(1)} MB)`);
    assert.equal(read.events.length, 103_000, 'each event once');
    const outOfOrder = read.events.findIndex((kind, i) => kind !== KINDS[i % 3]);
    assert.equal(outOfOrder, -1, `in order (first out of place at ${outOfOrder})`);
    assert.equal(await streamsOf(client), 1, 'the stalled streams were closed; the reading one stays');
  } finally {
    stop.abort();
    await read.done;
    for (const s of stalled) s.destroy();
    await client.close();
    await server.stop();
  }
});

test('a client whose user never reads its listen stream, flooded with 200,000 changes, keeps what it retains bounded', {
  timeout: 300_000,
}, async () => {
  const server = await startHttp();
  try {
    const { stdout } = await runNode(['--expose-gc', fixture('backpressure', 'idle-listener.js'), server.url.href]);
    type Point = { rss: number; retained: number };
    const { before, after } = JSON.parse(stdout.trim().split('\n').at(-1)!) as { before: Point; after: Point };
    // The queue keeps the newest 1,000 (maxQueuedNotifications, ~0.3 MB), beside code compiled
    // meanwhile and what is still in flight; all 200,000 kept would be ~50 MB.
    const grew = (after.retained - before.retained) / MB;
    assert.ok(
      grew < 8,
      `the client retains ${grew.toFixed(1)} MB more (RSS ${(before.rss / MB).toFixed(0)} → ${(after.rss / MB).toFixed(0)} MB)`,
    );
  } finally {
    await server.stop();
  }
});

/** Runs a Node script to its end; its stdout. */
function runNode(args: string[]): Promise<{ stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve({ stdout }) : reject(new Error(`${args.join(' ')} exited with ${code}`))));
  });
}

/** VmRSS of a process, in bytes (Linux). */
function rssOfPid(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(kb?.[1] ?? Number.NaN) * 1024;
}

test('stdio: a client that stops reading stdout stops the server reading stdin; nothing piles up; every answer arrives once it reads', {
  timeout: 300_000,
  skip: process.platform === 'linux' ? false : 'reads /proc for the RSS of a server that cannot answer',
}, async () => {
  const child = spawn(process.execPath, [SERVER, '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: string[] = [];
  let partial = '';
  child.stdout!.setEncoding('utf8');
  const onData = (c: string) => {
    const parts = (partial + c).split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
  };
  child.stdout!.on('data', onData);
  const send = (m: object) => child.stdin!.write(`${JSON.stringify(m)}\n`);
  try {
    const meta = modernMeta();
    send({ jsonrpc: '2.0', id: 'discover', method: 'server/discover', params: { _meta: meta } });
    await until(() => lines.some((l) => l.includes('"discover"')), 'the server answering');
    send({ jsonrpc: '2.0', id: 'listen', method: 'subscriptions/listen', params: { notifications: ALL_LISTS, _meta: meta } });
    await until(() => lines.some((l) => l.includes('subscriptions/acknowledged')), 'the listen stream open');
    const before = rssOfPid(child.pid!);

    // The client stops reading: the pipe and the server's own buffer fill with answers.
    child.stdout!.pause();
    child.stdout!.off('data', onData);
    send({ jsonrpc: '2.0', id: 'churn', method: 'tools/call', params: { name: 'churn', arguments: { count: 50_000 }, _meta: meta } });
    const REQUESTS = 20_000;
    let refused = 0;
    for (let i = 0; i < REQUESTS; i++) {
      if (!send({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'big', arguments: { n: 1024 }, _meta: meta } })) refused++;
    }
    // The server stops reading its stdin: our writes stay queued on our side of the pipe.
    await until(() => child.stdin!.writableLength > 1 * MB, 'the server to stop reading stdin', 60_000);
    await new Promise((r) => setTimeout(r, 500)); // what it read before stopping is answered into its buffer
    const stalled = rssOfPid(child.pid!);
    assert.ok(stalled - before < 10 * MB, `RSS grew by ${((stalled - before) / MB).toFixed(1)} MB while stdout was not read`);
    assert.ok(refused > 0, 'the pipe to the server filled');

    // The client reads again: every answer, in order, once.
    child.stdout!.on('data', onData);
    child.stdout!.resume();
    const answers = () => lines.filter((l) => l.startsWith('{"jsonrpc":"2.0","id":') && /"id":\d+,/.test(l));
    await until(() => answers().length === REQUESTS, 'every answer', 120_000);
    const ids = answers().map((l) => (JSON.parse(l) as { id: number }).id);
    assert.deepEqual(
      ids,
      Array.from({ length: REQUESTS }, (_, i) => i),
    );
    // The listen stream could not carry what was dropped: it was ended, with its answer.
    assert.ok(
      lines.some((l) => l.startsWith('{"jsonrpc":"2.0","id":"listen","result"')),
      'the listen subscription ended',
    );
  } finally {
    child.stdin!.end();
    child.kill('SIGTERM');
    await exited(child);
  }
});
