/**
 * A new revision is a small change: a revision defined here, in test code, derived from
 * 2026-07-28, adding one request method (`widgets/count`) and one result field
 * (`CallToolResult.widgetCount`) and dropping one method (`completion/complete`), is
 * registered with its schema and one handler, and with no edit to src/:
 *
 * - discovered and negotiated: `server/discover` lists it, the client picks it;
 * - served: its method answers, through the extension seam's one handler;
 * - shaped: `widgetCount` reaches a client of this revision only;
 * - gated: its method is refused (-32601) on 2026-07-28, and the method it dropped on it;
 * - spoken by the client, in memory and over Streamable HTTP on 127.0.0.1, every message
 *   checked against the revision's own schema (2026-07-28's, derived the same way).
 *
 * docs/architecture.md §A new revision says what a real one touches.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connect } from '../../src/client/index.js';
import { registerRevision, revision } from '../../src/protocol/revisions.js';
import { createServer, type Server } from '../../src/server/index.js';
import { ErrorCode, McpError } from '../../src/errors/index.js';
import { connectInMemory } from '../../src/testing/index.js';
import { serveHttp } from '../../src/transports/http/index.js';
import { wireValidator } from '../support/wire-schema.js';

declare module '../../src/protocol/versions.js' {
  interface KnownRevisions {
    '2099-01-01': 'modern';
  }
}

const NEXT = '2099-01-01';
const METHOD = 'widgets/count';
/** The method each revision lacks that the test sends anyway, to see it refused. */
const OFF_TABLE: Readonly<Record<string, string>> = { [NEXT]: 'completion/complete', '2026-07-28': METHOD };

registerRevision('2026-07-28', {
  version: NEXT,
  add: { methods: { clientRequests: [METHOD] }, fields: { CallToolResult: ['widgetCount'] } },
  drop: { methods: { clientRequests: ['completion/complete'] } },
});

/** The revision's schema: 2026-07-28's, with the same change. */
function nextSchema(): Record<string, unknown> {
  const doc = wireValidator().schemaOf('2026-07-28');
  const defs = doc.$defs as Record<string, Record<string, unknown>>;
  defs.WidgetsCountRequest = {
    properties: {
      id: { $ref: '#/$defs/RequestId' },
      jsonrpc: { const: '2.0', type: 'string' },
      method: { const: METHOD, type: 'string' },
      params: { $ref: '#/$defs/RequestParams' },
    },
    required: ['id', 'jsonrpc', 'method', 'params'],
    type: 'object',
  };
  defs.WidgetsCountResult = {
    properties: {
      _meta: { $ref: '#/$defs/ResultMetaObject' },
      resultType: { type: 'string' },
      count: { type: 'integer', minimum: 0 },
    },
    required: ['count'],
    type: 'object',
  };
  defs.WidgetsCountResultResponse = {
    properties: {
      id: { $ref: '#/$defs/RequestId' },
      jsonrpc: { const: '2.0', type: 'string' },
      result: { $ref: '#/$defs/WidgetsCountResult' },
    },
    required: ['id', 'jsonrpc', 'result'],
    type: 'object',
  };
  const union = defs.ClientRequest!.anyOf as Array<{ $ref: string }>;
  defs.ClientRequest!.anyOf = [...union.filter((r) => r.$ref !== '#/$defs/CompleteRequest'), { $ref: '#/$defs/WidgetsCountRequest' }];
  const result = defs.CallToolResult!;
  result.properties = { ...(result.properties as object), widgetCount: { type: 'integer', minimum: 0 } };
  return doc;
}

wireValidator().addRevision(NEXT, nextSchema());

/** A server of this library, with the revision's one handler plugged in through the extension seam. */
function widgetServer(): Server {
  const server = createServer({ name: 'widgets', version: '1.0.0' });
  server.tool('inventory', () => ({ content: [{ type: 'text', text: '3 widgets' }], widgetCount: 3 }));
  server.prompt('ask', { arguments: [{ name: 'about' }], complete: { about: () => ['widgets'] } }, () => 'Ask about widgets');
  server.extend({
    id: 'com.example/widgets',
    methods: {
      [METHOD]: { revisions: (v) => revision(v).methods.clientRequests.has(METHOD), run: () => ({ count: 3 }) },
    },
  });
  return server;
}

describe(`a revision defined in a test (${NEXT})`, () => {
  test('the table has it, derived from 2026-07-28: its method, its field, and the method it dropped gone', () => {
    const next = revision(NEXT);
    assert.equal(next.era, 'modern');
    assert.ok(next.methods.clientRequests.has(METHOD));
    assert.ok(!next.methods.clientRequests.has('completion/complete'));
    assert.ok(next.fields.CallToolResult?.has('widgetCount'));
    assert.ok(revision('2026-07-28').lacks.CallToolResult.has('widgetCount'), 'every other revision lacks the new field');
    assert.ok(revision('2025-11-25').lacks.CallToolResult.has('widgetCount'));
  });

  test('in memory: discovered, negotiated, served, shaped and gated; every message valid for its revision', async () => {
    const server = widgetServer();
    const next = await connectInMemory(server);
    const pinned = await connectInMemory(server, { protocolVersion: '2026-07-28' });
    try {
      assert.equal(next.client.protocolVersion, NEXT, 'the client negotiates the newest revision both know');
      assert.equal(pinned.client.protocolVersion, '2026-07-28');

      assert.deepEqual(await next.client.request(METHOD), { count: 3, resultType: 'complete', _meta: await serverInfoMeta(next) });
      const called = await next.client.callTool('inventory');
      assert.equal(field(called, 'widgetCount'), 3, 'the new field reaches a client of the new revision');
      const older = await pinned.client.callTool('inventory');
      assert.equal(field(older, 'widgetCount'), undefined, 'and no client of a revision that lacks it');

      await assert.rejects(pinned.client.request(METHOD), (e) => e instanceof McpError && e.code === ErrorCode.MethodNotFound);
      const completion = { ref: { type: 'ref/prompt', name: 'ask' }, argument: { name: 'about', value: 'w' } };
      assert.deepEqual(field((await pinned.client.request('completion/complete', completion)).completion as object, 'values'), ['widgets']);
      await assert.rejects(
        next.client.request('completion/complete', completion),
        (e) => e instanceof McpError && e.code === ErrorCode.MethodNotFound,
      );

      for (const [c, v] of [
        [next, NEXT],
        [pinned, '2026-07-28'],
      ] as const) {
        const methods = new Map<unknown, string>();
        for (const { from, message } of c.recorder.messages) {
          if ('method' in message && 'id' in message) methods.set(message.id, message.method);
          // The requests this test sends to a revision that lacks their method, to see them refused, are not that revision's messages.
          if (from === 'client' && 'method' in message && message.method === OFF_TABLE[v]) continue;
          const errors =
            from === 'server'
              ? wireValidator().checkServerMessage(v, message, { requestMethod: (id) => methods.get(id) })
              : wireValidator().checkClientMessage(v, message);
          assert.deepEqual(errors, [], `${from} message on ${v}: ${JSON.stringify(message)}`);
        }
      }
      const discovered = next.recorder.messages.map((m) => field(m.message, 'result')).find((r) => isObject(r) && 'supportedVersions' in r);
      assert.ok(isObject(discovered), 'the client discovered the server');
      assert.deepEqual(discovered.supportedVersions, [NEXT, '2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']);
    } finally {
      await next.close();
      await pinned.close();
      server.close();
    }
  });

  describe('over Streamable HTTP', () => {
    let server: Server;
    let http: Awaited<ReturnType<typeof serveHttp>>;
    before(async () => {
      server = widgetServer();
      http = await serveHttp(server, { port: 0, host: '127.0.0.1' });
    });
    after(async () => {
      await http.close();
      server.close();
    });

    test('the client negotiates it from server/discover, sends its version header, and gets its method and field', async () => {
      const client = await connect(http.url.href);
      try {
        assert.equal(client.protocolVersion, NEXT);
        assert.equal((await client.request(METHOD)).count, 3);
        assert.equal(field(await client.callTool('inventory'), 'widgetCount'), 3);
      } finally {
        await client.close();
      }
    });

    test('a 2026-07-28 request for its method is -32601 (HTTP 404), and its version header is accepted only with its method', async () => {
      const body = (v: string, method: string) =>
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method,
          params: {
            _meta: {
              'io.modelcontextprotocol/protocolVersion': v,
              'io.modelcontextprotocol/clientCapabilities': {},
              'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
            },
          },
        });
      const post = (v: string, method: string) =>
        fetch(http.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': v,
            'mcp-method': method,
          },
          body: body(v, method),
        });
      const refused = await post('2026-07-28', METHOD);
      assert.equal(refused.status, 404);
      assert.equal(((await refused.json()) as { error: { code: number } }).error.code, ErrorCode.MethodNotFound);
      const served = await post(NEXT, METHOD);
      assert.equal(served.status, 200);
      const answer = (await served.json()) as Record<string, unknown>;
      assert.deepEqual(wireValidator().checkServerMessage(NEXT, answer, { requestMethod: () => METHOD }), []);
    });
  });
});

async function serverInfoMeta(c: Awaited<ReturnType<typeof connectInMemory>>): Promise<Record<string, unknown>> {
  return { 'io.modelcontextprotocol/serverInfo': c.client.serverInfo };
}

/** A member of a wire value that its type does not name (the new revision's field). */
function field(value: object, key: string): unknown {
  return (value as { readonly [key: string]: unknown })[key];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}
