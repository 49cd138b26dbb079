/**
 * Logs on a stdio server, never on its stdout (transports.mdx §stdio:
 * the server MUST NOT write anything to stdout that is not a valid MCP message, and MAY write
 * logs to stderr). A real child process logging at debug through `consoleLogger` and
 * `logRequests`, spoken to in both eras on one channel: every stdout line is a JSON-RPC
 * message, every stderr line a JSON log line.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fixture, MODERN, type Msg } from '../support/common.js';
import { handshake } from '../support/peer.js';
import { StdioPeer } from '../support/stdio-peer.js';

test('a stdio server logging at debug: stdout carries only JSON-RPC messages, stderr the log lines (both eras)', async () => {
  const peer = new StdioPeer({ args: [fixture('logging-stdio.js')] });
  let stdout = '';
  peer.child.stdout.on('data', (chunk: string) => (stdout += chunk));
  // 'close' comes after both pipes ended: everything the child wrote is in.
  const closed = new Promise<void>((resolve) => peer.child.once('close', () => resolve()));
  let echo: Msg;
  let crash: Msg;
  let modern: Msg;
  let unknown: Msg;
  try {
    await handshake(peer, '2025-11-25');
    echo = await peer.request('tools/call', { name: 'echo', arguments: { text: 'hi' } });
    crash = await peer.request('tools/call', { name: 'crash', arguments: {} });
    unknown = await peer.request('nope/nothing');
    modern = await peer.modern('tools/call', { name: 'echo', arguments: { text: 'hello' } });
    assert.deepEqual(echo.result.content, [{ type: 'text', text: 'hi' }]);
    assert.equal(crash.result.isError, true);
    assert.equal(unknown.error.code, -32601);
    assert.deepEqual(modern.result.content, [{ type: 'text', text: 'hello' }]);
  } finally {
    await peer.close(); // fails on anything but protocol on stdout
    await closed;
  }

  const out = stdout.split('\n');
  assert.equal(out.pop(), '', 'stdout ends with a newline');
  assert.equal(out.length, 5, 'one line per response');
  for (const line of out) {
    const m = JSON.parse(line) as Msg;
    assert.equal(m.jsonrpc, '2.0', line);
    assert.ok('result' in m || 'error' in m, line);
  }

  const err = peer.stderr.split('\n');
  assert.equal(err.pop(), '', 'stderr ends with a newline');
  const entries = err.map((line) => {
    const e = JSON.parse(line) as Msg;
    assert.deepEqual(Object.keys(e).slice(0, 4), ['time', 'level', 'name', 'msg'], line);
    assert.equal(e.name, 'logging-fixture');
    return e;
  });
  const line = (id: unknown) => entries.find((e) => e.msg === 'request' && e.id === id);
  assert.deepEqual(
    entries.filter((e) => e.msg === 'notification').map((e) => [e.level, e.method, e.era]),
    [['debug', 'notifications/initialized', 'legacy']],
  );
  assert.deepEqual(
    [echo, crash, unknown, modern].map((m) => {
      const e = line(m.id)!;
      return [e.level, e.method, e.target, e.outcome, e.errorCode, e.era, e.protocolVersion, e.transport];
    }),
    [
      ['info', 'tools/call', 'echo', 'ok', undefined, 'legacy', '2025-11-25', 'stdio'],
      ['info', 'tools/call', 'crash', 'tool_error', undefined, 'legacy', '2025-11-25', 'stdio'],
      ['info', 'nope/nothing', undefined, 'error', -32601, 'legacy', '2025-11-25', 'stdio'],
      ['info', 'tools/call', 'echo', 'ok', undefined, 'modern', MODERN, 'stdio'],
    ],
  );
  assert.ok(
    entries.every((e) => e.msg !== 'request' || typeof e.durationMs === 'number'),
    'every request line is timed',
  );
  // The masked failure, in full, through the server's logger.
  const failures = entries.filter((e) => e.level === 'error');
  assert.equal(failures.length, 1, peer.stderr);
  assert.equal(failures[0]!.msg, 'database is down');
  assert.equal(failures[0]!.errorName, 'Error');
  assert.match(failures[0]!.stack, /Error: database is down\n\s+at .*logging-stdio\.js/);
  assert.doesNotMatch(stdout, /database is down/, 'the client never reads it');
});
