/**
 * Connecting and closing: `connect()` is idempotent (one handshake or probe, one client);
 * `close()` ends everything the client started: in-flight calls reject, listen streams end,
 * the spawned child exits (stdio lifecycle, basic/transports/stdio.mdx: close stdin, wait,
 * SIGTERM, SIGKILL; checked by PID), and no timer keeps the process alive.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { Client, connect } from '../../src/client/index.js';
import { MessageChannel } from '../../src/client/channels/message.js';
import { createMemoryPair } from '../../src/testing/index.js';
import { buildFixtureServer } from '../fixtures/client-server/server.js';
import { fixture, pidAlive } from '../support/common.js';
import { until } from '../support/wait.js';
import { FIXTURE_STDIO, inMemory, newWire, spawnFixture, spy } from './helpers.js';

const EXIT_PROBE = fixture('client-raw', 'exit-probe.js');

test('connect is idempotent: client.connect() again returns the same client and sends no second initialize', async () => {
  const { client, wire, close } = await inMemory(buildFixtureServer(), { protocolVersion: '2025-06-18' });
  try {
    assert.equal(await client.connect(), client);
    assert.equal(await client.connect(), client);
    assert.equal(wire.sent('initialize').length, 1);
    assert.equal(wire.sent('notifications/initialized').length, 1);
  } finally {
    await close();
  }
});

test('concurrent connect() calls on one Client share one probe (one server/discover) and resolve to that client', async () => {
  const [clientSide, serverSide] = createMemoryPair();
  const server = buildFixtureServer();
  const wire = newWire();
  await server.connect(spy(serverSide, wire));
  const client = new Client(new MessageChannel(clientSide, 'memory'));
  try {
    const [a, b] = await Promise.all([client.connect(), client.connect()]);
    assert.equal(a, client);
    assert.equal(b, client);
    assert.equal(client.era, 'modern');
    assert.equal(wire.sent('server/discover').length, 1);
  } finally {
    await client.close();
    server.close();
  }
});

test('close() is idempotent and rejects calls in flight instead of leaving them pending', async () => {
  const { client, close } = await inMemory(buildFixtureServer(), { protocolVersion: '2025-11-25' });
  const pending = client.callTool('block');
  await new Promise((r) => setTimeout(r, 20));
  await close();
  await client.close();
  await assert.rejects(pending);
  await assert.rejects(client.listTools());
});

test('close() ends open listen streams (next() is done)', async () => {
  const { client, wire, close } = await inMemory(buildFixtureServer());
  const stream = client.listen({ toolsListChanged: true });
  await until(() => wire.got('notifications/subscriptions/acknowledged').length === 1);
  const next = stream.next();
  await close();
  assert.deepEqual(await next, { done: true, value: undefined });
});

for (const protocolVersion of ['2025-11-25', '2026-07-28'] as const) {
  test(`[${protocolVersion}] stdio: close() makes the spawned server exit (checked by PID), promptly when nothing is in flight`, async () => {
    const { channel, child } = spawnFixture(FIXTURE_STDIO);
    const client = await connect(channel, { protocolVersion });
    await client.listTools();
    assert.equal(pidAlive(child.pid!), true);
    const started = Date.now();
    await client.close();
    assert.equal(pidAlive(child.pid!), false, `pid ${child.pid} still alive`);
    assert.equal(child.signalCode, null, 'the child exited on stdin EOF, without a signal');
    assert.equal(child.exitCode, 0);
    assert.ok(Date.now() - started < 1500, `close took ${Date.now() - started} ms`);
  });
}

test('a failed connect() closes the client and its child: a legacy pin against a modern-only stdio server (-32022 to initialize)', async () => {
  const { channel, child } = spawnFixture(FIXTURE_STDIO, { FIXTURE_ERAS: 'modern' });
  await assert.rejects(connect(channel, { protocolVersion: '2025-11-25' }), (e: any) => e.code === -32022);
  assert.equal(pidAlive(child.pid!), false, `pid ${child.pid} still alive after the failed connect`);
});

test('after close() nothing keeps the process alive: a client process with calls and streams in flight exits by itself', async () => {
  const proc = spawn(process.execPath, [EXIT_PROBE], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout.on('data', (c) => (out += c));
  proc.stderr.on('data', (c) => (err += c));
  let closedAt = 0;
  proc.stdout.on('data', () => (closedAt ||= out.includes('closed') ? Date.now() : 0));
  const exit = await new Promise<{ code: number | null; at: number }>((resolve) => {
    const kill = setTimeout(() => proc.kill('SIGKILL'), 20_000);
    proc.once('exit', (code) => (clearTimeout(kill), resolve({ code, at: Date.now() })));
  });
  assert.equal(exit.code, 0, `exit probe failed: ${err}`);
  assert.match(out, /closed/);
  assert.ok(exit.at - closedAt < 1000, `the process lingered ${exit.at - closedAt} ms after every client closed`);
});
