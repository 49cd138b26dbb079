/**
 * `janus-mcp/otel`, spans: a Janus client calling a Janus server gives one trace
 * across both (the server span's parent is the client span, the trace context having crossed
 * in `params._meta`), in both eras, in memory and over real HTTP on 127.0.0.1, with the
 * attributes of the MCP semantic conventions (semantic-conventions-genai docs/gen-ai/mcp.md
 * §Spans) and `janus.mcp.era`; failures carry `error.type`, `rpc.response.status_code` and an
 * ERROR status; handlers run inside the server span (their spans are its children) and see
 * the client's baggage.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { context, propagation, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { McpError } from '../../src/errors/index.js';
import { clientTracing, instrumentServer } from '../../src/otel/index.js';
import { createServer, type Server } from '../../src/server/index.js';
import { ErrorCode, ToolError } from '../../src/errors/index.js';
import { ERAS, idOf, MODES, pair, parentOf, Telemetry, traceOf, useContextManager } from './support.js';

useContextManager();

interface Seen {
  baggage: Array<string | undefined>;
  errors: unknown[];
}

/** A server with a tool of each outcome, a prompt and a resource, instrumented with `tel`. */
function fixture(tel: Telemetry, seen: Seen): Server {
  const server = createServer({ name: 'otel-fixture', version: '1.0.0', onError: (e) => void seen.errors.push(e) });
  instrumentServer(server, tel.options());
  server.tool('lookup', (args) => {
    seen.baggage.push(propagation.getBaggage(context.active())?.getEntry('tenant')?.value);
    // The application's own span, made inside the handler: a child of the server span.
    return tel.app.startActiveSpan('db.query', (span) => {
      span.end();
      return `found ${String(args.id)}`;
    });
  });
  server.tool('refuse', () => {
    throw new McpError(ErrorCode.InvalidParams, 'no such order');
  });
  server.tool('model-error', () => {
    throw new ToolError('try another id');
  });
  // A tool's unexpected failure: the model reads a masked text, never the error's own words.
  server.tool('crash', () => {
    throw new RangeError('db01.internal refused the query');
  });
  server.prompt('greeting', { description: 'says hello' }, () => 'hello');
  // A tool's unexpected failure is a tool error for the model; a prompt's is masked as -32603.
  server.prompt('broken', { description: 'fails' }, () => {
    throw new TypeError('boom');
  });
  server.resource('test://doc', { name: 'doc', mimeType: 'text/plain' }, 'the doc');
  return server;
}

for (const mode of MODES) {
  for (const { era, version } of ERAS) {
    describe(`${era} era (${version}), ${mode}`, () => {
      // A server bound with `server.connect(transport)` cannot tell an in-memory pair from stdio: it reports stdio.
      const transport = { server: mode === 'http' ? 'tcp' : undefined, client: mode === 'http' ? 'tcp' : undefined };

      test('a call inside a parent span: client and server spans in one trace, the server span a child of the client span, the handler a child of the server span, baggage across', async () => {
        const tel = new Telemetry();
        const seen: Seen = { baggage: [], errors: [] };
        const p = await pair(fixture(tel, seen), mode, { era, middleware: [clientTracing(tel.options())] });
        try {
          assert.equal(p.client.era, era);
          assert.equal(p.client.protocolVersion, version);
          tel.exporter.reset();
          const bag = propagation.createBaggage({ tenant: { value: 'acme' } });
          await context.with(propagation.setBaggage(context.active(), bag), () =>
            tel.app.startActiveSpan('agent turn', async (span) => {
              try {
                await p.client.callTool('lookup', { id: '7' });
              } finally {
                span.end();
              }
            }),
          );
          const root = tel.span('agent turn', SpanKind.INTERNAL);
          const client = tel.span('tools/call lookup', SpanKind.CLIENT);
          const server = tel.span('tools/call lookup', SpanKind.SERVER);
          const db = tel.span('db.query', SpanKind.INTERNAL);
          assert.deepEqual(new Set([root, client, server, db].map(traceOf)), new Set([traceOf(root)]), 'one trace');
          assert.equal(parentOf(client), idOf(root));
          assert.equal(parentOf(server), idOf(client), "the server span's parent is the client span");
          assert.equal(parentOf(db), idOf(server), "the handler's span is a child of the server span");
          assert.deepEqual(seen.baggage, ['acme'], 'the baggage reached the handler');

          const common = {
            'mcp.method.name': 'tools/call',
            'gen_ai.tool.name': 'lookup',
            'gen_ai.operation.name': 'execute_tool',
            'mcp.protocol.version': version,
            'janus.mcp.era': era,
          };
          const keys = [...Object.keys(common), 'network.transport'];
          assert.deepEqual(pick(server.attributes, keys), { ...common, 'network.transport': transport.server });
          assert.deepEqual(pick(client.attributes, keys), { ...common, 'network.transport': transport.client });
          assert.match(String(server.attributes['jsonrpc.request.id']), /^\S+$/, 'the request id, as a string');
          assert.equal(typeof server.attributes['jsonrpc.request.id'], 'string');
          assert.equal(server.attributes['error.type'], undefined);
          assert.equal(server.status.code, SpanStatusCode.UNSET);
          assert.equal(server.attributes['gen_ai.tool.call.arguments'], undefined, 'payloads are opt-in');
          if (era === 'legacy') assert.equal(typeof server.attributes['mcp.session.id'], 'string', 'a legacy session has an id');
          else assert.equal(server.attributes['mcp.session.id'], undefined, 'the 2026-07-28 wire has no sessions');
          if (mode === 'http') {
            assert.equal(client.attributes['mcp.session.id'], server.attributes['mcp.session.id'], 'both sides name the same session');
            assert.equal(client.attributes['server.address'], '127.0.0.1');
            assert.equal(typeof client.attributes['server.port'], 'number');
          }
          if (p.recorder) {
            // In memory the server would inherit the caller's context anyway: the wire shows the context crossed in _meta.
            const [sent] = p.recorder.fromClient('tools/call') as Array<{ params: { _meta?: Record<string, unknown> } }>;
            assert.match(String(sent!.params._meta?.traceparent), new RegExp(`^00-${traceOf(client)}-${idOf(client)}-0[01]$`));
            assert.equal(sent!.params._meta?.baggage, 'tenant=acme');
          }
          assert.deepEqual(seen.errors, []);
        } finally {
          await p.close();
          await tel.shutdown();
        }
      });

      test('prompts/get and resources/read: the prompt names the span; the resource URI is an attribute, never in the name', async () => {
        const tel = new Telemetry();
        const p = await pair(fixture(tel, { baggage: [], errors: [] }), mode, { era, middleware: [clientTracing(tel.options())] });
        try {
          await p.client.getPrompt('greeting');
          await p.client.readResource('test://doc');
          for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
            const prompt = tel.span('prompts/get greeting', kind);
            assert.equal(prompt.attributes['gen_ai.prompt.name'], 'greeting');
            assert.equal(prompt.attributes['gen_ai.operation.name'], undefined, 'execute_tool is for tool calls only');
            const read = tel.span('resources/read', kind);
            assert.equal(read.attributes['mcp.resource.uri'], 'test://doc');
          }
          assert.equal(parentOf(tel.span('resources/read', SpanKind.SERVER)), idOf(tel.span('resources/read', SpanKind.CLIENT)));
        } finally {
          await p.close();
          await tel.shutdown();
        }
      });

      test('failures: an McpError, a tool error result, an unexpected throw', async () => {
        const tel = new Telemetry();
        const seen: Seen = { baggage: [], errors: [] };
        const p = await pair(fixture(tel, seen), mode, { era, middleware: [clientTracing(tel.options())] });
        try {
          await assert.rejects(p.client.callTool('refuse'), (e: unknown) => e instanceof McpError && e.code === ErrorCode.InvalidParams);
          for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
            const s = tel.span('tools/call refuse', kind);
            assert.equal(s.attributes['error.type'], '-32602', `${kind}`);
            assert.equal(s.attributes['rpc.response.status_code'], '-32602');
            assert.deepEqual(s.status, { code: SpanStatusCode.ERROR, message: 'no such order' });
          }

          assert.equal((await p.client.callTool('model-error')).isError, true);
          for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
            const s = tel.span('tools/call model-error', kind);
            assert.equal(s.attributes['error.type'], 'tool_error', 'mcp.md: a CallToolResult with isError is a tool_error');
            assert.equal(s.attributes['rpc.response.status_code'], undefined, 'the JSON-RPC call itself succeeded');
            assert.deepEqual(s.status, { code: SpanStatusCode.ERROR, message: 'try another id' }, 'the text the model read');
          }

          const crashed = await p.client.callTool('crash');
          assert.equal(crashed.isError, true);
          const masked = (crashed.content[0] as { text: string }).text;
          assert.doesNotMatch(masked, /db01/);
          for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
            const s = tel.span('tools/call crash', kind);
            assert.equal(s.attributes['error.type'], 'tool_error');
            assert.deepEqual(s.status, { code: SpanStatusCode.ERROR, message: masked }, 'the masked text, as the model read it');
          }

          await assert.rejects(p.client.getPrompt('broken'), (e: unknown) => e instanceof McpError && e.code === ErrorCode.InternalError);
          const server = tel.span('prompts/get broken', SpanKind.SERVER);
          assert.equal(server.attributes['error.type'], 'TypeError', 'the server names what it masked');
          assert.equal(server.attributes['rpc.response.status_code'], '-32603', 'what the response carried');
          assert.deepEqual(
            server.status,
            { code: SpanStatusCode.ERROR, message: 'Internal error' },
            'the masked message, as the client got it',
          );
          const exception = server.events.find((e) => e.name === 'exception');
          assert.equal(exception?.attributes?.['exception.type'], 'TypeError');
          assert.equal(exception?.attributes?.['exception.message'], 'boom', 'the exception event keeps what was masked');
          const client = tel.span('prompts/get broken', SpanKind.CLIENT);
          assert.equal(client.attributes['error.type'], '-32603');
          assert.deepEqual(client.status, { code: SpanStatusCode.ERROR, message: 'Internal error' });
          assert.equal(parentOf(server), idOf(client));
          assert.equal(seen.errors.length, 2, 'the masked failures (the crashed tool, the broken prompt) still reached onError');

          // server/resources.mdx §Error Handling: -32002 up to 2025-11-25, -32602 on 2026-07-28.
          const notFound = era === 'legacy' ? '-32002' : '-32602';
          await assert.rejects(
            p.client.readResource('test://missing'),
            (e: unknown) => e instanceof McpError && String(e.code) === notFound,
          );
          for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
            const s = tel.span('resources/read', kind);
            assert.equal(s.attributes['error.type'], notFound, `${kind}`);
            assert.equal(s.attributes['rpc.response.status_code'], notFound);
          }
        } finally {
          await p.close();
          await tel.shutdown();
        }
      });
    });
  }
}

describe('options', () => {
  test('captureToolPayloads records the arguments and the result as JSON on both spans', async () => {
    const tel = new Telemetry();
    const server = createServer({ name: 'payloads', version: '1.0.0' });
    instrumentServer(server, tel.options({ captureToolPayloads: true }));
    server.tool('double', (args) => `${Number(args.n) * 2}`);
    const p = await pair(server, 'memory', { middleware: [clientTracing(tel.options({ captureToolPayloads: true }))] });
    try {
      const result = await p.client.callTool('double', { n: 21 });
      assert.deepEqual(result.content, [{ type: 'text', text: '42' }]);
      for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
        const s = tel.span('tools/call double', kind);
        assert.equal(s.attributes['gen_ai.tool.call.arguments'], '{"n":21}');
        assert.equal(s.attributes['gen_ai.tool.call.result'], '[{"type":"text","text":"42"}]');
      }
    } finally {
      await p.close();
      await tel.shutdown();
    }
  });
});

function pick(attributes: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, attributes[k]]));
}
