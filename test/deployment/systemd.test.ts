/**
 * docs/deployment.md, "A systemd service": the unit passes `systemd-analyze verify` (where it is
 * installed), and its ExecStart, run with its Environment= lines, serves the tool and drains on
 * the SIGTERM systemd sends, within TimeoutStopSec. systemd itself does not start it here.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect as connectSocket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { connect } from '../../src/client/index.js';
import { until } from '../support/wait.js';
import { baseEnv, builtServer, freePort, pageFile, start, stop, waitForOutput, type Started } from './support.js';

const unit = pageFile('my-mcp-server.service');
const work = mkdtempSync(join(tmpdir(), 'janus-systemd-'));
const started: Started[] = [];
after(async () => {
  for (const p of started) await stop(p, 'SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

/** `Key=value` lines of the [Service] section, in order (a key may repeat). */
function serviceSettings(text: string): Array<[string, string]> {
  const section = text.split(/^\[Service\]$/m)[1]!.split(/^\[/m)[0]!;
  return section
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]);
}

const settings = serviceSettings(unit);
const setting = (key: string): string => {
  const found = settings.find(([k]) => k === key);
  assert.ok(found, `the unit sets ${key}=`);
  return found[1];
};

const analyze = ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'].find((p) => existsSync(p));

test('the unit is what the page promises: restart on failure, its own user, SIGTERM with time for the drain, hardening', () => {
  assert.equal(setting('Restart'), 'on-failure');
  assert.notEqual(setting('User'), 'root');
  assert.equal(setting('KillSignal'), 'SIGTERM');
  const drainMs = Number(
    /^DRAIN_MS=(\d+)$/.exec(
      settings
        .filter(([k]) => k === 'Environment')
        .map(([, v]) => v)
        .find((v) => v.startsWith('DRAIN_MS='))!,
    )![1],
  );
  assert.ok(Number(setting('TimeoutStopSec')) * 1000 > drainMs, 'systemd waits longer than the server drains');
  for (const key of ['NoNewPrivileges', 'ProtectSystem', 'ProtectHome', 'PrivateTmp']) assert.ok(setting(key));
});

test('systemd-analyze verify accepts the unit without a warning', {
  skip: analyze ? false : 'systemd-analyze is not installed: the unit is not verified here',
}, async () => {
  const file = join(work, 'my-mcp-server.service');
  writeFileSync(file, unit);
  const { code, stderr } = await new Promise<{ code: number; stderr: string }>((resolve) =>
    execFile(analyze!, ['verify', file], { encoding: 'utf8' }, (error, _stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stderr }),
    ),
  );
  const aboutUnit = stderr.split('\n').filter((l) => l.includes('my-mcp-server.service'));
  assert.equal(code, 0, stderr);
  assert.deepEqual(aboutUnit, [], 'no warning about the unit');
});

test('ExecStart with the unit environment serves the tool, and SIGTERM drains it as systemd would stop it', {
  timeout: 150_000,
}, async () => {
  const dir = builtServer(join(work, 'opt-my-mcp-server'));
  const port = await freePort();
  const env: Record<string, string> = {};
  for (const [, value] of settings.filter(([k]) => k === 'Environment')) {
    const eq = value.indexOf('=');
    env[value.slice(0, eq)] = value.slice(eq + 1);
  }
  env.PORT = String(port); // another port than the page's 3000, free on this machine
  const [command, ...args] = setting('ExecStart').split(/\s+/);
  // The unit names /usr/bin/node; where Node lives elsewhere, the same Node that runs the tests.
  const server = start(existsSync(command!) ? command! : process.execPath, args, { cwd: dir, env: baseEnv(env) });
  started.push(server);
  await waitForOutput(server, `listening on http://127.0.0.1:${port}/mcp`);

  const url = `http://127.0.0.1:${port}/mcp`;
  const client = await connect(url, { era: 'modern' });
  assert.deepEqual(
    (await client.listTools()).tools.map((t) => t.name),
    ['add_note'],
  );
  // A listen stream that is open: a note reaches it (repeat until it does; it may still be opening).
  const seen: string[] = [];
  const listenerGot = (async () => {
    for await (const n of client.listen({ resourceSubscriptions: ['notes://all'] })) seen.push(n.method);
  })();
  await until(
    async () => {
      await client.callTool('add_note', { text: 'before the signal' });
      return seen.includes('notifications/resources/updated');
    },
    'a notification on the open listen stream',
    60_000,
  );

  // A request in flight when the signal comes: its headers are in, its body is not yet.
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 'add_note',
      arguments: { text: 'in flight' },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
  const socket = connectSocket(port, '127.0.0.1');
  let answer = '';
  socket.on('data', (d: Buffer) => (answer += d.toString()));
  const socketClosed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  // `Expect: 100-continue`: Node answers 100 once it has parsed the headers, just before the
  // request reaches the server's handlers, so the test knows the request is in flight.
  socket.write(
    `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
      `MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: add_note\r\nExpect: 100-continue\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
  );
  await until(() => answer.includes('100 Continue'), 'the server to take the request', 60_000);
  const signalledAt = performance.now();
  server.child.kill('SIGTERM');
  await waitForOutput(server, 'SIGTERM, draining');
  const draining = Number(/draining (\d+) request/.exec(server.output())![1]);
  assert.ok(draining >= 2, `the request in flight and the listen stream are waited for (${draining})`);
  socket.end(body);
  await socketClosed;
  const exit = await server.exited;
  const tookMs = performance.now() - signalledAt;

  assert.match(answer, /\r\n\r\nHTTP\/1\.1 200 /, answer);
  assert.match(answer, /connection: close/i, 'the last answer on its connection');
  assert.match(answer, /"text":"\d+ note\(s\)"/, 'the call in flight ran to its answer');
  assert.deepEqual(exit, { code: 0, signal: null }, server.output());
  assert.match(server.output(), /my-mcp-server: drained/);
  // The listen stream was ended by the server, not waited out: the drain took less than its grace.
  assert.ok(tookMs < Number(env.DRAIN_MS), `drained in ${Math.round(tookMs)} ms, before DRAIN_MS and TimeoutStopSec`);
  await client.close();
  await listenerGot.catch(() => undefined); // the server is gone: the loop ends either way
});
