/**
 * The 2026-07-28 stateless wire with the real core over real HTTP
 * (docs/2026-07-28/basic/transports/streamable-http.mdx, basic/index.mdx §Per-request
 * protocol fields and §Error Codes, basic/versioning.mdx §Backward Compatibility,
 * basic/patterns/{mrtr,subscriptions}.mdx, server/utilities/logging.mdx).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { META_CAPS, META_LOG, META_SUB, META_VERSION, MODERN, type Msg } from '../support/common.js';
import { ALL_VERSIONS, MODERN_META } from '../support/everything-fixture.js';
import { delay, until } from '../support/wait.js';
import { HttpPeer, nextMessage, rpc, serve, type Outcome } from './support.js';

const text = (t: string) => ({ resultType: 'complete', content: [{ type: 'text', text: t }], _meta: MODERN_META });

/** [status, error code] of an error outcome. */
function refusal(o: Outcome): [number, number | undefined] {
  return [o.status, o.messages[0]?.error?.code];
}

test('server/discover without _meta, or without clientCapabilities → 400 -32602 (basic/index.mdx §Per-request protocol fields)', async () => {
  const s = await serve();
  const peer = new HttpPeer(s.url, MODERN);
  try {
    const headers = { 'mcp-protocol-version': MODERN, 'mcp-method': 'server/discover' };
    const noMeta = await peer.post(rpc(1, 'server/discover', {}), headers);
    const noCaps = await peer.post(rpc(2, 'server/discover', { _meta: { [META_VERSION]: MODERN } }), headers);
    assert.deepEqual({ noMeta: refusal(noMeta), noCaps: refusal(noCaps) }, { noMeta: [400, -32602], noCaps: [400, -32602] });
    peer.assertClean();
  } finally {
    await s.close();
  }
});

test('tools/call carrying the 2026-07-28 headers but no _meta protocolVersion → 400 -32602, not the legacy "No session" -32600', async () => {
  const s = await serve();
  const peer = new HttpPeer(s.url, MODERN);
  try {
    const headers = { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'test_simple_text' };
    const noMeta = await peer.post(rpc(1, 'tools/call', { name: 'test_simple_text', arguments: {} }), headers);
    const noVersion = await peer.post(
      rpc(2, 'tools/call', { name: 'test_simple_text', arguments: {}, _meta: { [META_CAPS]: {} } }),
      headers,
    );
    assert.deepEqual(
      { noMeta: noMeta.messages[0], noVersion: noVersion.messages[0] },
      {
        noMeta: { jsonrpc: '2.0', id: 1, error: { code: -32602, message: noMeta.messages[0]!.error.message } },
        noVersion: { jsonrpc: '2.0', id: 2, error: { code: -32602, message: noVersion.messages[0]!.error.message } },
      },
    );
    assert.deepEqual([noMeta.status, noVersion.status], [400, 400]);
    assert.equal(s.sessions.size, 0);
    peer.assertClean();
  } finally {
    await s.close();
  }
});

test('an unsupported _meta protocolVersion → 400 -32022 with data.supported and data.requested', async () => {
  const s = await serve();
  const peer = new HttpPeer(s.url, MODERN);
  try {
    const body = rpc(1, 'tools/call', {
      name: 'test_simple_text',
      arguments: {},
      _meta: { [META_VERSION]: '2099-01-01', [META_CAPS]: {} },
    });
    const o = await peer.post(body, { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/call', 'mcp-name': 'test_simple_text' });
    assert.equal(o.status, 400);
    assert.deepEqual(o.messages[0], {
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32022, message: o.messages[0]!.error.message, data: { supported: ALL_VERSIONS, requested: '2099-01-01' } },
    });
    peer.assertClean();
  } finally {
    await s.close();
  }
});

test('header/body mismatches → 400 -32020: MCP-Protocol-Version, Mcp-Method, Mcp-Name (missing or different) (§Server Validation)', async () => {
  const s = await serve();
  const peer = new HttpPeer(s.url, MODERN);
  try {
    const call = { name: 'test_simple_text', arguments: {} };
    const cases: Record<string, Record<string, string | undefined>> = {
      version: { 'mcp-protocol-version': '2025-11-25' },
      versionMissing: { 'mcp-protocol-version': undefined },
      method: { 'mcp-method': 'tools/list' },
      methodMissing: { 'mcp-method': undefined },
      name: { 'mcp-name': 'test_error_handling' },
      nameMissing: { 'mcp-name': undefined },
    };
    const got: Record<string, [number, number | undefined]> = {};
    for (const [k, headers] of Object.entries(cases)) got[k] = refusal(await peer.modern('tools/call', call, { headers }));
    assert.deepEqual(got, Object.fromEntries(Object.keys(cases).map((k) => [k, [400, -32020]])));
    peer.assertClean();
  } finally {
    await s.close();
  }
});

test('Mcp-Name in the =?base64?…?= form is decoded before comparing; x-mcp-header params need their Mcp-Param-* header (§Value Encoding, §Custom Headers)', async () => {
  const s = await serve();
  const peer = new HttpPeer(s.url, MODERN);
  try {
    const uri = 'test://template/café/data';
    const read = await peer.modern(
      'resources/read',
      { uri },
      { headers: { 'mcp-name': `=?base64?${Buffer.from(uri).toString('base64')}?=` } },
    );
    assert.equal(read.status, 200);
    assert.equal(read.messages[0]!.result.contents[0].uri, uri);

    const call = { name: 'test_x_mcp_header', arguments: { region: 'us-west1' } };
    const ok = await peer.modern('tools/call', call, { headers: { 'mcp-param-region': 'us-west1' } });
    const missing = await peer.modern('tools/call', call);
    const wrong = await peer.modern('tools/call', call, { headers: { 'mcp-param-region': 'eu-north1' } });
    assert.deepEqual(ok.messages[0]!.result.content, [{ type: 'text', text: 'region=us-west1' }]);
    assert.deepEqual(
      [refusal(missing), refusal(wrong)],
      [
        [400, -32020],
        [400, -32020],
      ],
    );
    peer.assertClean();
  } finally {
    await s.close();
  }
});

test('methods removed in 2026-07-28 → 404 -32601 (changelog; streamable-http.mdx §Protocol Version Header)', async () => {
  const s = await serve();
  const peer = new HttpPeer(s.url, MODERN);
  try {
    const removed: Array<[string, Record<string, unknown>]> = [
      ['initialize', { protocolVersion: MODERN, capabilities: {}, clientInfo: { name: 'x', version: '1' } }],
      ['ping', {}],
      ['resources/subscribe', { uri: 'test://watched-resource' }],
      ['resources/unsubscribe', { uri: 'test://watched-resource' }],
      ['logging/setLevel', { level: 'info' }],
    ];
    for (const [method, params] of removed) {
      const o = await peer.modern(method, params);
      assert.deepEqual(refusal(o), [404, -32601], method);
      assert.equal(o.headers['mcp-session-id'], undefined);
    }
    assert.equal(s.sessions.size, 0, 'a modern initialize opens no session');
    peer.assertClean();
  } finally {
    await s.close();
  }
});

test('test_missing_capability with {} capabilities → 400 -32021 naming data.requiredCapabilities (basic/index.mdx)', async () => {
  const s = await serve();
  const peer = new HttpPeer(s.url, MODERN);
  try {
    const o = await peer.modern('tools/call', { name: 'test_missing_capability', arguments: {} }, { caps: {} });
    assert.equal(o.status, 400);
    assert.equal(o.messages[0]!.error.code, -32021);
    assert.deepEqual(o.messages[0]!.error.data, { requiredCapabilities: { sampling: {} } });
    peer.assertClean();
  } finally {
    await s.close();
  }
});

test('GET and DELETE with MCP-Protocol-Version 2026-07-28 → 405 Allow: POST; Mcp-Session-Id and Last-Event-ID on POSTs are ignored, no session is minted (§Backward Compatibility)', async () => {
  const s = await serve();
  const peer = new HttpPeer(s.url, MODERN);
  try {
    for (const method of ['GET', 'DELETE']) {
      const r = await peer.send({
        method,
        headers: { 'mcp-protocol-version': MODERN, accept: 'text/event-stream', 'mcp-session-id': 'whatever' },
      });
      await r.text();
      assert.equal(r.status, 405, method);
      assert.equal(r.headers.allow, 'POST');
    }
    const o = await peer.modern(
      'tools/call',
      { name: 'test_simple_text', arguments: {} },
      {
        id: 5,
        headers: { 'mcp-session-id': 'made-up-session', 'last-event-id': 'made-up.1#4' },
      },
    );
    assert.deepEqual(
      [o.status, o.kind, o.messages],
      [200, 'json', [{ jsonrpc: '2.0', id: 5, result: text('This is a simple text response for testing.') }]],
    );
    assert.equal(o.headers['mcp-session-id'], undefined);
    assert.equal(s.sessions.size, 0);
    peer.assertClean();
  } finally {
    await s.close();
  }
});

test('input_required round trip over HTTP: inputRequests + requestState, the retry with a new id and inputResponses completes (basic/patterns/mrtr.mdx)', async () => {
  const s = await serve();
  const peer = new HttpPeer(s.url, MODERN);
  try {
    const caps = { elicitation: { form: {} } };
    const params = { name: 'test_input_required_result_elicitation', arguments: {} };
    const first = await peer.modern('tools/call', params, { id: 1, caps });
    assert.equal(first.status, 200);
    const r = first.messages[0]!.result;
    assert.equal(typeof r.requestState, 'string');
    assert.deepEqual(first.messages[0], {
      jsonrpc: '2.0',
      id: 1,
      result: {
        resultType: 'input_required',
        inputRequests: {
          user_name: {
            method: 'elicitation/create',
            params: {
              message: 'What is your name?',
              requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
            },
          },
        },
        requestState: r.requestState,
        _meta: MODERN_META,
      },
    });
    const retry = await peer.modern(
      'tools/call',
      {
        ...params,
        inputResponses: { user_name: { action: 'accept', content: { name: 'Ada' } } },
        requestState: r.requestState,
      },
      { id: 2, caps },
    );
    assert.deepEqual([retry.status, retry.messages], [200, [{ jsonrpc: '2.0', id: 2, result: text('Hello, Ada!') }]]);

    const tampered = await peer.modern(
      'tools/call',
      {
        ...params,
        inputResponses: { user_name: { action: 'accept', content: { name: 'Eve' } } },
        requestState: `${r.requestState}x`,
      },
      { id: 3, caps },
    );
    assert.ok(tampered.messages[0]!.error, `a tampered requestState is refused: ${JSON.stringify(tampered.messages[0])}`);
    peer.assertClean();
  } finally {
    await s.close();
  }
});

test('subscriptions/listen over HTTP: ack first, list_changed after test_trigger_tool_change from another request, resources/updated; closing the stream removes the listener (basic/patterns/subscriptions.mdx)', async () => {
  const s = await serve();
  const peer = new HttpPeer(s.url, MODERN);
  const listen = await peer.openModern(
    'subscriptions/listen',
    {
      notifications: { toolsListChanged: true, resourceSubscriptions: ['test://watched-resource'] },
    },
    { id: 'listen-1' },
  );
  try {
    assert.equal(listen.status, 200);
    assert.equal(listen.isSse, true);
    assert.deepEqual(await nextMessage(listen), {
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: {
        notifications: { toolsListChanged: true, resourceSubscriptions: ['test://watched-resource'] },
        _meta: { [META_SUB]: 'listen-1' },
      },
    });
    assert.equal(s.core.hub.size, 1);

    // Prompt changes were not asked for: never sent (the server MUST NOT send unrequested types).
    await peer.modern('tools/call', { name: 'test_trigger_prompt_change', arguments: {} }, { id: 'p' });
    const trigger = await peer.modern('tools/call', { name: 'test_trigger_tool_change', arguments: {} }, { id: 2 });
    assert.deepEqual(trigger.messages, [{ jsonrpc: '2.0', id: 2, result: text('Tool list changed') }]);
    assert.deepEqual(await nextMessage(listen), {
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { [META_SUB]: 'listen-1' } },
    });

    // Request-scoped logs stay on their own request's stream, never on the listen stream.
    const logged = await peer.modern('tools/call', { name: 'test_logging_tool', arguments: {} }, { id: 3, meta: { [META_LOG]: 'debug' } });
    assert.equal(logged.messages.length, 2);
    s.server.resourceUpdated('test://watched-resource');
    assert.deepEqual(await nextMessage(listen), {
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { uri: 'test://watched-resource', _meta: { [META_SUB]: 'listen-1' } },
    });

    listen.abort(); // closing the stream ends the subscription (§Ending a subscription)
    await until(() => s.core.hub.size === 0, 'the listener to be removed');
    const again = await peer.modern('tools/call', { name: 'test_trigger_tool_change', arguments: {} }, { id: 4 });
    assert.deepEqual(again.messages, [{ jsonrpc: '2.0', id: 4, result: text('Tool list changed') }]);
    await delay(20);
    assert.deepEqual(s.errors, []);
    assert.equal(listen.events.length, 3, 'ack, list_changed, resources/updated and nothing else');
    peer.assertClean();
  } finally {
    listen.abort();
    await s.close();
  }
});

test('logging: no notifications/message without _meta logLevel; at info they precede the result on the SSE stream (server/utilities/logging.mdx)', async () => {
  const s = await serve();
  const peer = new HttpPeer(s.url, MODERN);
  try {
    const quiet = await peer.modern('tools/call', { name: 'test_tool_with_logging', arguments: {} }, { id: 1 });
    assert.deepEqual([quiet.kind, quiet.messages], ['json', [{ jsonrpc: '2.0', id: 1, result: text('Logging test completed') }]]);
    const loud = await peer.modern(
      'tools/call',
      { name: 'test_tool_with_logging', arguments: {} },
      { id: 2, meta: { [META_LOG]: 'info' } },
    );
    const log = (data: string): Msg => ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data } });
    assert.equal(loud.kind, 'sse');
    assert.deepEqual(loud.messages, [
      log('Tool execution started'),
      log('Tool processing data'),
      log('Tool execution completed'),
      { jsonrpc: '2.0', id: 2, result: text('Logging test completed') },
    ]);
    assert.ok(
      loud.events.every((e) => e.id === undefined),
      '2026-07-28 streams are not resumable: no event ids',
    );
    peer.assertClean();
  } finally {
    await s.close();
  }
});

test('progress: with a progressToken the notifications precede the result on the SSE stream (basic/patterns/progress.mdx)', async () => {
  const s = await serve();
  const peer = new HttpPeer(s.url, MODERN);
  try {
    const o = await peer.modern('tools/call', { name: 'test_tool_with_progress', arguments: {}, _meta: { progressToken: 99 } }, { id: 1 });
    const p = (n: number) => ({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 99, progress: n, total: 100, message: `step ${n}` },
    });
    assert.deepEqual(
      [o.status, o.kind, o.messages],
      [200, 'sse', [p(0), p(50), p(100), { jsonrpc: '2.0', id: 1, result: text('Progress test completed') }]],
    );
    peer.assertClean();
  } finally {
    await s.close();
  }
});
