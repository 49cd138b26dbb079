/**
 * `janus-mcp/otel`, metrics: `mcp.server.operation.duration` and
 * `mcp.client.operation.duration` (seconds, with the method, tool name, protocol version,
 * transport, and `error.type` when failed: semantic-conventions-genai docs/gen-ai/mcp.md
 * §Metrics), `janus.mcp.server.requests.active` (+1 while a request runs, back to 0 after),
 * `mcp.server.session.duration` (from the session hooks), and the gauges read from
 * `server.stats()`: `janus.mcp.server.sessions`, `janus.mcp.server.listen_streams`. In both
 * eras, in memory and over real HTTP on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { MetricData } from '@opentelemetry/sdk-metrics';
import { clientTracing, instrumentServer } from '../../src/otel/index.js';
import { coreOf, type Inbound } from '../../src/spi/index.js';
import { createServer } from '../../src/server/index.js';
import { deferred, until } from '../support/wait.js';
import { ERAS, MODES, pair, pointsBy, Telemetry, useContextManager } from './support.js';

useContextManager();

/** The data points of `metric` whose attributes include `match`. */
function pointsWith(metric: MetricData | undefined, match: Record<string, unknown>) {
  return (metric?.dataPoints ?? []).filter((p) => Object.entries(match).every(([k, v]) => p.attributes[k] === v));
}

const histogramCount = (p: { value: unknown }) => (p.value as { count: number }).count;

for (const mode of MODES) {
  for (const { era, version } of ERAS) {
    describe(`${era} era (${version}), ${mode}`, () => {
      test('operation durations on both sides, in-flight requests up while a tool runs and back to 0, the sessions gauge, the session duration', async () => {
        const tel = new Telemetry();
        const server = createServer({ name: 'metrics', version: '1.0.0' });
        instrumentServer(server, tel.options());
        const entered = deferred();
        const gate = deferred();
        server.tool('slow', async () => {
          entered.resolve();
          await gate.promise;
          return 'done';
        });
        const p = await pair(server, mode, { era, middleware: [clientTracing(tel.options())] });
        let closed = false;
        try {
          const call = p.client.callTool('slow');
          await entered.promise;
          const during = pointsBy(await tel.metric('janus.mcp.server.requests.active'), 'mcp.method.name');
          assert.equal(during.get('tools/call'), 1, 'one tools/call in flight');
          assert.equal(
            pointsBy(await tel.metric('janus.mcp.server.sessions'), 'x').get(undefined),
            era === 'legacy' ? 1 : 0,
            'open legacy sessions',
          );
          gate.resolve();
          await call;
          const after = pointsBy(await tel.metric('janus.mcp.server.requests.active'), 'mcp.method.name');
          assert.ok(after.size > 0);
          for (const [method, n] of after) assert.equal(n, 0, `${String(method)} back to 0`);

          await assert.rejects(p.client.callTool('missing'));
          const transport = { server: mode === 'http' ? 'tcp' : undefined, client: mode === 'http' ? 'tcp' : undefined };
          for (const side of ['server', 'client'] as const) {
            const metric = await tel.metric(`mcp.${side}.operation.duration`);
            assert.equal(metric?.descriptor.unit, 's');
            const ok = pointsWith(metric, { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'slow' });
            assert.equal(ok.length, 1, side);
            assert.equal(histogramCount(ok[0]!), 1);
            assert.equal(ok[0]!.attributes['mcp.protocol.version'], version);
            assert.equal(ok[0]!.attributes['network.transport'], transport[side]);
            assert.equal(ok[0]!.attributes['error.type'], undefined);
            assert.equal(ok[0]!.attributes['jsonrpc.request.id'], undefined, 'no per-request values on a metric');
            // The server keeps a tool it does not have out of its metrics (the client chose the name); the client names it.
            const failed = pointsWith(metric, { 'mcp.method.name': 'tools/call', 'error.type': '-32602' });
            assert.equal(failed.length, 1, side);
            assert.equal(failed[0]!.attributes['gen_ai.tool.name'], side === 'client' ? 'missing' : undefined);
          }

          await p.close();
          closed = true;
          if (era === 'legacy') {
            await until(
              async () => histogramCount((await tel.metric('mcp.server.session.duration'))?.dataPoints[0] ?? { value: { count: 0 } }) === 1,
              'the session duration',
            );
            const [point] = (await tel.metric('mcp.server.session.duration'))!.dataPoints;
            assert.equal(point!.attributes['mcp.protocol.version'], version);
            assert.equal(point!.attributes['network.transport'], transport.server);
          } else {
            assert.equal(
              (await tel.metric('mcp.server.session.duration'))?.dataPoints.length ?? 0,
              0,
              'no sessions on the 2026-07-28 wire',
            );
          }
          await until(async () => pointsBy(await tel.metric('janus.mcp.server.sessions'), 'x').get(undefined) === 0, 'no open session');
        } finally {
          gate.resolve();
          if (!closed) await p.close();
          server.close();
          await tel.shutdown();
        }
      });
    });
  }
}

describe('listen streams', () => {
  for (const mode of MODES) {
    test(`${mode}: a 2026-07-28 subscriptions/listen stream is counted by the gauge and as an active request while open`, async () => {
      const tel = new Telemetry();
      const server = createServer({ name: 'listen', version: '1.0.0' });
      instrumentServer(server, tel.options());
      server.tool('noop', () => 'ok');
      const p = await pair(server, mode, { era: 'modern', middleware: [clientTracing(tel.options())] });
      try {
        const streams = async () => pointsBy(await tel.metric('janus.mcp.server.listen_streams'), 'x').get(undefined);
        assert.equal(await streams(), 0);
        const stream = p.client.listen({ toolsListChanged: true });
        await until(async () => (await streams()) === 1, 'the listen stream counted');
        const active = pointsBy(await tel.metric('janus.mcp.server.requests.active'), 'mcp.method.name');
        assert.equal(active.get('subscriptions/listen'), 1);
        await stream.return!();
        await until(async () => (await streams()) === 0, 'the listen stream gone');
        await until(
          async () => pointsBy(await tel.metric('janus.mcp.server.requests.active'), 'mcp.method.name').get('subscriptions/listen') === 0,
          'the listen request ended',
        );
      } finally {
        await p.close();
        server.close();
        await tel.shutdown();
      }
    });
  }
});

describe('cardinality', () => {
  test("a client's made-up methods and tool names make no new metric series on the server (spans still say what was sent)", async () => {
    const tel = new Telemetry();
    const server = createServer({ name: 'cardinality', version: '1.0.0' });
    instrumentServer(server, tel.options());
    server.tool('real', () => 'ok');
    const core = coreOf(server);
    const inbound: Inbound = { transport: 'http', send: () => {} };
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    try {
      for (let i = 0; i < 20; i++) {
        await core.handle({ jsonrpc: '2.0', id: `m${i}`, method: `made/up/${i}`, params: { _meta: meta } }, inbound);
        await core.handle({ jsonrpc: '2.0', id: `t${i}`, method: 'tools/call', params: { name: `nope${i}`, _meta: meta } }, inbound);
      }
      await core.handle({ jsonrpc: '2.0', id: 'r', method: 'tools/call', params: { name: 'real', _meta: meta } }, inbound);
      const duration = await tel.metric('mcp.server.operation.duration');
      const series = (duration?.dataPoints ?? []).map(
        (p) => `${String(p.attributes['mcp.method.name'])} ${String(p.attributes['gen_ai.tool.name'])}`,
      );
      assert.deepEqual(series.sort(), ['_OTHER undefined', 'tools/call real', 'tools/call undefined']);
      const active = pointsBy(await tel.metric('janus.mcp.server.requests.active'), 'mcp.method.name');
      assert.deepEqual([...active.keys()].sort(), ['_OTHER', 'tools/call']);
      const madeUp = tel.spans().filter((s) => s.name === '_OTHER');
      assert.equal(madeUp.length, 20);
      assert.equal(madeUp[3]!.attributes['mcp.method.name'], 'made/up/3');
      assert.equal(tel.spans().filter((s) => s.attributes['gen_ai.tool.name'] === 'nope7').length, 1);
    } finally {
      server.close();
      await tel.shutdown();
    }
  });
});
