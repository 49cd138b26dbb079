/**
 * Client middleware over real transports (src/client/middleware.ts): `_meta` a
 * middleware sets reaches a real Janus server in both eras (basic/index.mdx §_meta), over
 * Streamable HTTP on 127.0.0.1, the 2024-11-05 HTTP+SSE transport and a stdio child, next to
 * the keys the 2026-07-28 era adds; and the context names the channel, the server's URL and
 * the legacy session.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { connect, type ClientMiddleware, type ClientMiddlewareContext } from '../../src/client/index.js';
import { LegacySseChannel } from '../../src/client/legacy/sse-channel.js';
import { buildMetaServer, type Seen } from '../fixtures/client-middleware/server.js';
import { fixture, META_CLIENT, META_VERSION, pidAlive } from '../support/common.js';
import { spawnFixture, textOf } from '../client/helpers.js';
import { serveFixture } from './support.js';

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const META_STDIO = fixture('client-middleware', 'stdio.js');

type Observed = Pick<ClientMiddlewareContext, 'method' | 'era' | 'transport' | 'serverUrl' | 'sessionId'>;

/** Adds `traceparent` to every request's `_meta` and records each call's context. */
function tracing(observed: Observed[]): ClientMiddleware {
  return (ctx, next) => {
    observed.push({ method: ctx.method, era: ctx.era, transport: ctx.transport, serverUrl: ctx.serverUrl, sessionId: ctx.sessionId });
    ctx.params = { ...ctx.params, _meta: { ...ctx.params._meta, traceparent: TRACEPARENT } };
    return next();
  };
}

/** Every request the server saw carries the traceparent, and on the modern wire (and the probe) the era's envelope too. */
function assertTraced(seen: readonly Seen[], era: 'modern' | 'legacy'): void {
  assert.ok(seen.some((s) => s.method === 'tools/call'));
  for (const { method, meta } of seen) {
    // The start watch's own ping (src/client/start-watch.ts: a server slow to start, as on a busy
    // machine, gets one after a second) is the client's probe, not a call: no middleware runs for it.
    if (method === 'ping') continue;
    assert.equal(meta?.traceparent, TRACEPARENT, method);
    if (era === 'modern' || method === 'server/discover') {
      assert.equal(meta?.[META_VERSION], '2026-07-28', method);
      assert.ok(meta?.[META_CLIENT], method);
    } else {
      assert.equal(META_VERSION in (meta ?? {}), false, method);
    }
  }
}

describe('client middleware over Streamable HTTP on 127.0.0.1', () => {
  test('modern: _meta reaches the server on every request and every input_required round; ctx names http and the URL', async () => {
    const { server, seen } = buildMetaServer();
    const served = await serveFixture({}, {}, server);
    const observed: Observed[] = [];
    const client = await connect(served.url, {
      middleware: [tracing(observed)],
      onElicit: () => ({ action: 'accept', content: { name: 'Ada' } }),
    });
    try {
      assert.equal(client.era, 'modern');
      await client.listTools();
      assert.equal(JSON.parse(textOf(await client.callTool('meta'))).traceparent, TRACEPARENT, 'the handler’s ctx.meta');
      assert.equal(textOf(await client.callTool('ask')), 'hello Ada');
      assertTraced(seen, 'modern');
      assert.equal(seen.filter((s) => s.method === 'tools/call').length, 3, 'meta, then ask twice (input_required and its retry)');
      assert.deepEqual(
        observed.map((o) => o.method),
        ['server/discover', 'tools/list', 'tools/call', 'tools/call'],
      );
      for (const o of observed) {
        assert.equal(o.transport, 'http');
        assert.equal(o.serverUrl?.href, served.url.href);
        assert.equal(o.sessionId, undefined);
      }
    } finally {
      await client.close();
      await served.close();
    }
  });

  test('legacy: _meta reaches the server on every request, initialize included; ctx carries the session id', async () => {
    const { server, seen } = buildMetaServer({ eras: { legacy: true, modern: false } });
    const served = await serveFixture({}, {}, server);
    const observed: Observed[] = [];
    const client = await connect(served.url, { middleware: [tracing(observed)] });
    try {
      assert.equal(client.era, 'legacy');
      await client.listTools();
      assert.equal(JSON.parse(textOf(await client.callTool('meta'))).traceparent, TRACEPARENT);
      assertTraced(seen, 'legacy');
      assert.ok(seen.some((s) => s.method === 'initialize'));
      const session = seen.find((s) => s.method === 'tools/call')?.sessionId;
      assert.ok(session, 'the server saw a session');
      assert.deepEqual(
        observed.map((o) => [o.method, o.era, o.sessionId]),
        [
          ['server/discover', undefined, undefined],
          ['initialize', undefined, undefined],
          ['tools/list', 'legacy', session],
          ['tools/call', 'legacy', session],
        ],
      );
      for (const o of observed) assert.equal(o.serverUrl?.href, served.url.href);
    } finally {
      await client.close();
      await served.close();
    }
  });
});

test('legacy over the 2024-11-05 HTTP+SSE transport: _meta reaches the server; ctx names sse', async () => {
  const { server, seen } = buildMetaServer({ eras: { legacy: true, modern: false } });
  const served = await serveFixture({}, {}, server);
  const observed: Observed[] = [];
  const client = await connect(new LegacySseChannel(served.url), { protocolVersion: '2024-11-05', middleware: [tracing(observed)] });
  try {
    assert.equal(client.transportKind, 'sse');
    assert.equal(JSON.parse(textOf(await client.callTool('meta'))).traceparent, TRACEPARENT);
    assertTraced(seen, 'legacy');
    assert.deepEqual(
      observed.map((o) => [o.method, o.transport, o.serverUrl?.href]),
      [
        ['initialize', 'sse', served.url.href],
        ['tools/call', 'sse', served.url.href],
      ],
    );
  } finally {
    await client.close();
    await served.close();
  }
});

for (const era of ['modern', 'legacy'] as const) {
  test(`${era} over a stdio child: _meta reaches the server on every request`, async () => {
    const { channel, child } = spawnFixture(META_STDIO, { FIXTURE_ERAS: era });
    const observed: Observed[] = [];
    const client = await connect(channel, { middleware: [tracing(observed)] });
    try {
      assert.equal(client.era, era);
      assert.equal(JSON.parse(textOf(await client.callTool('meta'))).traceparent, TRACEPARENT);
      const seen: Seen[] = JSON.parse(textOf(await client.callTool('seen')));
      assertTraced(seen, era);
      assert.ok(observed.every((o) => o.transport === 'stdio' && o.serverUrl === undefined));
    } finally {
      await client.close();
    }
    assert.equal(pidAlive(child.pid!), false, `child ${child.pid} still running after close()`);
  });
}
