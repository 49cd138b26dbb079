/**
 * Session hooks and the session handle over stdio, against a real child
 * process (test/fixtures/sessions-stdio.ts), whose hooks report on stderr:
 * - `onInitialized` after notifications/initialized, with the negotiated revision and the
 *   transport; the handle logs, notifies and asks for roots outside any request, answered by a
 *   real Janus client's `onRoots`; `onRootsChanged` on notifications/roots/list_changed;
 *   `onClosed` once the client closes stdin; `ctx.session` is the same session;
 * - the 2026-07-28 wire has no session: no hooks, `ctx.session` undefined;
 * - server pings (basic/utilities/ping.mdx): a client that answers stays; one that stops
 *   answering is ended (onClosed) and the server lets go of stdio.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spawnChannel } from '../../src/client/channels/spawn.js';
import { connect } from '../../src/client/index.js';
import type { JsonRpcNotification } from '../../src/protocol/jsonrpc.js';
import { fixture, type Msg } from '../support/common.js';
import { StdioPeer } from '../support/stdio-peer.js';
import { until } from '../support/wait.js';
import { textOf } from '../client/helpers.js';

const SESSIONS_STDIO = fixture('sessions-stdio.js');

interface SessionEvent {
  event: string;
  id: string;
  [key: string]: unknown;
}

/** The `session-event` lines of a stderr text. */
function eventsIn(stderr: string): SessionEvent[] {
  return stderr
    .split('\n')
    .filter((l) => l.startsWith('session-event '))
    .map((l) => JSON.parse(l.slice('session-event '.length)) as SessionEvent);
}

/** The fixture as a child we own, its stderr collected. */
function spawnSessions(env: Record<string, string> = {}) {
  const { channel, child } = spawnChannel({ command: process.execPath, args: [SESSIONS_STDIO], env, stderr: 'pipe' });
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => (stderr += chunk));
  const stderrClosed = new Promise<void>((resolve) => child.stderr!.once('close', () => resolve()));
  return { channel, child, stderrClosed, events: () => eventsIn(stderr), stderr: () => stderr };
}

for (const rev of ['2024-11-05', '2025-11-25'] as const) {
  test(`[${rev}] stdio: hooks see the session initialize, change roots and close; its handle acts outside any request`, async () => {
    const child = spawnSessions();
    let roots = [{ uri: 'file:///a', name: 'a' }];
    const notes: JsonRpcNotification[] = [];
    const client = await connect(child.channel, {
      protocolVersion: rev,
      clientInfo: { name: 'sessions-test', version: '1.0.0' },
      onRoots: () => roots,
      onNotification: (n) => notes.push(n),
    });
    let id: string;
    try {
      const initialized = await until(() => child.events().find((e) => e.event === 'initialized'), 'onInitialized');
      id = initialized.id;
      assert.deepEqual(initialized, { event: 'initialized', id, protocolVersion: rev, transport: 'stdio', client: 'sessions-test' });
      // The hook's own asks and notifications, outside any request, on stdout.
      const first = await until(() => child.events().find((e) => e.event === 'roots'), 'the roots the hook asked for');
      assert.deepEqual(first.uris, ['file:///a']);
      await until(() => notes.find((n) => n.method === 'notifications/message'), 'the hook’s log');
      assert.deepEqual(notes.find((n) => n.method === 'notifications/message')?.params, {
        level: 'info',
        data: 'welcome',
        logger: 'sessions-stdio',
      });
      await until(() => notes.some((n) => n.method === 'notifications/tools/list_changed'), 'the hook’s notification');
      // ctx.session is the session the hooks saw.
      assert.equal(textOf(await client.callTool('whoami')), id);

      roots = [{ uri: 'file:///b', name: 'b' }];
      await client.rootsChanged();
      await until(() => child.events().some((e) => e.event === 'roots-changed'), 'onRootsChanged');
      const again = await until(() => child.events().filter((e) => e.event === 'roots')[1], 'the roots asked for again');
      assert.deepEqual(again.uris, ['file:///b']);
      assert.equal(
        child.events().some((e) => e.event === 'closed'),
        false,
        'no onClosed while the client is there',
      );
    } finally {
      await client.close();
    }
    await child.stderrClosed;
    const events = child.events();
    assert.deepEqual(
      events.filter((e) => e.event === 'closed'),
      [{ event: 'closed', id, closed: true }],
      'onClosed once, with the session ended',
    );
    assert.deepEqual(
      events.map((e) => e.id),
      events.map(() => id),
      'every hook saw the same session',
    );
    assert.doesNotMatch(child.stderr(), /^error /m, 'no hook failed');
  });
}

test('stdio, 2026-07-28: no session, so no hooks, and ctx.session is undefined', async () => {
  const child = spawnSessions();
  const client = await connect(child.channel, { protocolVersion: '2026-07-28', onRoots: () => [] });
  try {
    assert.equal(textOf(await client.callTool('whoami')), 'none');
  } finally {
    await client.close();
  }
  await child.stderrClosed;
  assert.deepEqual(child.events(), []);
});

test('stdio server pings: a client that answers keeps its session; one that stops is ended, and the server lets go of stdio', async () => {
  const peer = new StdioPeer({ args: [SESSIONS_STDIO], env: { SESSIONS_PING_MS: '100', SESSIONS_PING_TIMEOUT_MS: '1000' } });
  try {
    await peer.call('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'pinged', version: '1' } });
    peer.notify('notifications/initialized');
    // Three pings in a row, each answered: the session stays.
    for (let i = 0; i < 3; i++) {
      const ping = await peer.next((m: Msg) => m.method === 'ping');
      assert.equal(ping.params === undefined || Object.keys(ping.params).length === 0, true, 'a ping carries no params');
      peer.respond(ping.id, {});
    }
    assert.equal(
      eventsIn(peer.stderr).some((e) => e.event === 'closed'),
      false,
      'an answering client keeps its session',
    );
    // The next one is left unanswered: the session ends within its timeout, onClosed says so.
    const unanswered = await peer.next((m: Msg) => m.method === 'ping');
    const closed = await until(() => eventsIn(peer.stderr).find((e) => e.event === 'closed'), 'onClosed after the unanswered ping');
    assert.equal(closed.closed, true);
    // The client is told the ping was given up (lifecycle.mdx §Timeouts), and the server exits on its own.
    const cancelled = await peer.next((m: Msg) => m.method === 'notifications/cancelled');
    assert.equal(cancelled.params.requestId, unanswered.id);
    const exit = await peer.exited;
    assert.equal(exit.code, 0);
  } finally {
    await peer.close();
  }
  assert.doesNotMatch(peer.stderr, /^error /m, 'nothing reported: a dead client is no server failure');
});
