/**
 * `janus-mcp/otel`, context and composition: the server takes its span's parent
 * from `params._meta` and links the ambient span (semantic-conventions-genai
 * docs/gen-ai/mcp.md §Context propagation: "SHOULD use context extracted from params._meta as
 * a parent … and SHOULD link current ambient context"); `serverTracing` composes with other
 * middleware; `ConnectOptions.middleware` traces the era detection, `instrumentClient` the
 * calls after it; with no options, the global providers and propagator are used.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { context, metrics, propagation, SpanKind, trace } from '@opentelemetry/api';
import { connect } from '../../src/client/index.js';
import { clientTracing, instrumentClient, instrumentServer, serverTracing } from '../../src/otel/index.js';
import { createServer } from '../../src/server/index.js';
import { connectInMemory } from '../../src/testing/index.js';
import { ERAS, idOf, pair, parentOf, pointsBy, Telemetry, traceOf, useContextManager } from './support.js';

useContextManager();

const REMOTE_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const REMOTE_SPAN = '00f067aa0ba902b7';

describe('server context', () => {
  for (const { era } of ERAS) {
    test(`${era}: trace context in _meta is the parent, the ambient span a link; without it the ambient span is the parent`, async () => {
      const tel = new Telemetry();
      const server = createServer({ name: 'ambient', version: '1.0.0' });
      // Stands for transport instrumentation (an HTTP server span) active around the MCP request.
      server.use((_ctx, next) =>
        tel.app.startActiveSpan('transport', async (span) => {
          try {
            return await next();
          } finally {
            span.end();
          }
        }),
      );
      server.use(serverTracing(tel.options()));
      server.tool('noop', () => 'ok');
      const { client, close } = await connectInMemory(server, { era });
      try {
        tel.exporter.reset();
        await client.request('tools/call', {
          name: 'noop',
          arguments: {},
          _meta: { traceparent: `00-${REMOTE_TRACE}-${REMOTE_SPAN}-01`, tracestate: 'vendor=x' },
        });
        const withMeta = tel.span('tools/call noop', SpanKind.SERVER);
        const ambient = tel.span('transport', SpanKind.INTERNAL);
        assert.equal(traceOf(withMeta), REMOTE_TRACE);
        assert.equal(parentOf(withMeta), REMOTE_SPAN);
        assert.equal(withMeta.spanContext().traceState?.get('vendor'), 'x', 'tracestate crossed too');
        assert.deepEqual(
          withMeta.links.map((l) => l.context.spanId),
          [idOf(ambient)],
          'the ambient span is linked',
        );

        tel.exporter.reset();
        await client.callTool('noop');
        const without = tel.span('tools/call noop', SpanKind.SERVER);
        assert.equal(parentOf(without), idOf(tel.span('transport', SpanKind.INTERNAL)));
        assert.deepEqual(without.links, []);
      } finally {
        await close();
        await tel.shutdown();
      }
    });
  }
});

describe('client composition', () => {
  test('ConnectOptions.middleware traces the era detection: initialize (legacy) and server/discover (modern), on both sides', async () => {
    for (const { era, version } of ERAS) {
      const tel = new Telemetry();
      const server = createServer({ name: 'detect', version: '1.0.0' });
      instrumentServer(server, tel.options());
      const p = await pair(server, 'memory', { ...(era === 'legacy' ? { era } : {}), middleware: [clientTracing(tel.options())] });
      try {
        const method = era === 'legacy' ? 'initialize' : 'server/discover';
        const client = tel.span(method, SpanKind.CLIENT);
        const served = tel.span(method, SpanKind.SERVER);
        assert.equal(parentOf(served), idOf(client), era);
        if (era === 'legacy') {
          assert.equal(client.attributes['mcp.protocol.version'], version, 'the version initialize negotiated');
          assert.equal(served.attributes['mcp.protocol.version'], version);
        }
      } finally {
        await p.close();
        await tel.shutdown();
      }
    }
  });

  test('instrumentClient on a connected client traces the calls after it, the detection not', async () => {
    const tel = new Telemetry();
    const server = createServer({ name: 'later', version: '1.0.0' });
    instrumentServer(server, tel.options());
    server.tool('noop', () => 'ok');
    const { client, close } = await connectInMemory(server);
    try {
      instrumentClient(client, tel.options());
      await client.callTool('noop');
      assert.equal(parentOf(tel.span('tools/call noop', SpanKind.SERVER)), idOf(tel.span('tools/call noop', SpanKind.CLIENT)));
      assert.equal(tel.spans().filter((s) => s.kind === SpanKind.CLIENT).length, 1, 'server/discover went before');
    } finally {
      await close();
      await tel.shutdown();
    }
  });
});

describe('a tool that asks the client', () => {
  for (const { era } of ERAS) {
    test(`${era}: the client's one span is the parent of every server span the call makes (2026-07-28: one per input_required round)`, async () => {
      const tel = new Telemetry();
      const server = createServer({ name: 'asks', version: '1.0.0' });
      instrumentServer(server, tel.options());
      server.tool('ask', async (_args, ctx) => {
        const answer = await ctx.elicit({
          message: 'Name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
        });
        return answer.action === 'accept' ? `Hello, ${String(answer.content?.name)}!` : 'no';
      });
      const p = await pair(server, 'http', {
        era,
        middleware: [clientTracing(tel.options())],
        onElicit: () => ({ action: 'accept', content: { name: 'Ada' } }),
      });
      try {
        const result = await p.client.callTool('ask');
        assert.deepEqual(result.content, [{ type: 'text', text: 'Hello, Ada!' }]);
        const client = tel.span('tools/call ask', SpanKind.CLIENT);
        const served = tel.spans().filter((s) => s.name === 'tools/call ask' && s.kind === SpanKind.SERVER);
        assert.equal(served.length, era === 'modern' ? 2 : 1, 'a 2026-07-28 round is a request of its own');
        for (const s of served) assert.equal(parentOf(s), idOf(client));
      } finally {
        await p.close();
        await tel.shutdown();
      }
    });
  }
});

describe('defaults', () => {
  test('with no options: the global tracer provider, meter provider and propagator', async () => {
    const tel = new Telemetry();
    trace.setGlobalTracerProvider(tel.tracerProvider);
    metrics.setGlobalMeterProvider(tel.meterProvider);
    propagation.setGlobalPropagator(tel.propagator);
    try {
      const server = createServer({ name: 'globals', version: '1.0.0' });
      instrumentServer(server);
      server.tool('noop', () => 'ok');
      const http = await import('../../src/transports/http/index.js').then((m) => m.serveHttp(server));
      const client = await connect(http.url, { middleware: [clientTracing()] });
      try {
        await context.with(context.active(), () => client.callTool('noop'));
        assert.equal(parentOf(tel.span('tools/call noop', SpanKind.SERVER)), idOf(tel.span('tools/call noop', SpanKind.CLIENT)));
        assert.equal(pointsBy(await tel.metric('mcp.server.operation.duration'), 'gen_ai.tool.name').get('noop'), 1);
        assert.equal(pointsBy(await tel.metric('mcp.client.operation.duration'), 'gen_ai.tool.name').get('noop'), 1);
      } finally {
        await client.close();
        await http.close();
      }
    } finally {
      trace.disable();
      metrics.disable();
      propagation.disable();
      await tel.shutdown();
    }
  });
});
