/**
 * Fallback to the deprecated HTTP+SSE transport of 2024-11-05 (docs/2024-11-05/basic/
 * transports.mdx §HTTP with SSE; docs/2025-11-25/basic/transports.mdx §Backwards
 * Compatibility; 2026-07-28 streamable-http.mdx §Backward Compatibility 3): a server that
 * 404s POSTs to the URL but serves GET → `endpoint` event → message POSTs. The client must
 * probe, try initialize, then GET, and from then on POST to the endpoint and read every
 * answer (responses, progress, the server's own sampling/roots requests) off the one stream.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { test } from 'node:test';
import { connect } from '../../src/client/index.js';
import { createNodeHandler } from '../../src/transports/http/index.js';
import { asks, features, progress } from '../client/battery.js';
import { askHandlers, textOf } from '../client/helpers.js';
import { buildFixtureServer } from '../fixtures/client-server/server.js';
import type { Msg } from '../support/common.js';
import { until } from '../support/wait.js';
import { nodeServer, rawServer, recordingFetch } from './support.js';

/**
 * A hand-written 2024-11-05 HTTP+SSE server: POST /mcp → 404; GET /mcp → SSE whose first
 * event is `endpoint` (a relative URI); POST /mcp/messages?sessionId=… → 202, answers on the
 * stream. `ask` sends sampling/createMessage and roots/list to the client over the stream
 * and waits for the answers the client POSTs back.
 */
async function httpSseServer() {
  const streams = new Map<string, ServerResponse>();
  const waiting = new Map<string, (m: Msg) => void>();
  const received: Msg[] = [];
  let seq = 0;
  const emit = (sid: string, m: Msg) => streams.get(sid)?.write(`event: message\ndata: ${JSON.stringify(m)}\n\n`);
  const ask = (sid: string, method: string, params: Msg) =>
    new Promise<Msg>((resolve) => {
      const id = `s${++seq}`;
      waiting.set(id, resolve);
      emit(sid, { jsonrpc: '2.0', id, method, params });
    });

  async function answer(sid: string, m: Msg): Promise<Msg | { error: Msg }> {
    const p = m.params ?? {};
    switch (m.method) {
      case 'initialize':
        return {
          protocolVersion: '2024-11-05',
          capabilities: { tools: {}, prompts: {}, resources: {} },
          serverInfo: { name: 'raw-sse', version: '0.1' },
          instructions: 'old school',
        };
      case 'ping':
        return {};
      case 'tools/list':
        return { tools: ['echo', 'slow', 'ask'].map((name) => ({ name, inputSchema: { type: 'object' } })) };
      case 'tools/call': {
        if (p.name === 'echo') return { content: [{ type: 'text', text: `echo: ${p.arguments?.text}` }] };
        if (p.name === 'slow') {
          for (let i = 1; i <= 3; i++) {
            await new Promise((r) => setTimeout(r, 20));
            emit(sid, {
              jsonrpc: '2.0',
              method: 'notifications/progress',
              params: { progressToken: p._meta?.progressToken, progress: i, total: 3 },
            });
          }
          return { content: [{ type: 'text', text: 'slow done' }] };
        }
        if (p.name === 'ask') {
          const [sample, roots] = await Promise.all([
            ask(sid, 'sampling/createMessage', { messages: [{ role: 'user', content: { type: 'text', text: 'hi?' } }], maxTokens: 5 }),
            ask(sid, 'roots/list', {}),
          ]);
          return {
            content: [{ type: 'text', text: JSON.stringify([sample.result?.content?.text, roots.result?.roots?.map((r: Msg) => r.uri)]) }],
          };
        }
        return { error: { code: -32602, message: `unknown tool ${p.name}` } };
      }
      case 'prompts/get':
        return { messages: [{ role: 'user', content: { type: 'text', text: `Hello, ${p.arguments?.name}!` } }] };
      case 'resources/read':
        return { contents: [{ uri: p.uri, mimeType: 'text/plain', text: 'old text' }] };
      case 'completion/complete':
        return { completion: { values: ['Ada', 'Alan'].filter((v) => v.startsWith(p.argument?.value ?? '')), hasMore: false } };
      default:
        return { error: { code: -32601, message: `Method not found: ${m.method}` } };
    }
  }

  const raw = await rawServer((req, res, body) => {
    const url = new URL(req.url!, 'http://x');
    if (req.method === 'GET' && url.pathname === '/mcp') {
      const sid = randomUUID();
      streams.set(sid, res);
      res.once('close', () => streams.delete(sid));
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(`event: endpoint\ndata: /mcp/messages?sessionId=${sid}\n\n`);
      return;
    }
    if (req.method === 'POST' && url.pathname === '/mcp/messages') {
      const sid = url.searchParams.get('sessionId') ?? '';
      if (!streams.has(sid)) return void res.writeHead(404).end('no such session');
      const m = JSON.parse(body) as Msg;
      received.push(m);
      res.writeHead(202).end('Accepted');
      if (m.method === undefined) return waiting.get(String(m.id))?.(m);
      if (m.id === undefined) return;
      void answer(sid, m).then((out) =>
        emit(
          sid,
          'error' in out && Object.keys(out).length === 1
            ? { jsonrpc: '2.0', id: m.id, error: out.error }
            : { jsonrpc: '2.0', id: m.id, result: out },
        ),
      );
      return;
    }
    // Everything else, the POSTs of Streamable HTTP included, is not here.
    res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
  });
  return { ...raw, received, streams };
}

for (const pinned of [undefined, '2024-11-05'] as const) {
  test(`${pinned ? 'pinned 2024-11-05' : 'unpinned'}: a 2024-11-05-only HTTP+SSE server (POST /mcp → 404) → fallback to HTTP+SSE; tools with progress, prompt, resource, completion, sampling and roots over the stream`, async (t) => {
    const s = await httpSseServer();
    t.after(() => s.close());
    const rec = recordingFetch();
    const h = askHandlers();
    const client = await connect(s.url, { fetch: rec.fetch, ...(pinned ? { protocolVersion: pinned } : {}), ...h.options });
    try {
      assert.equal(client.transportKind, 'sse');
      assert.equal(client.era, 'legacy');
      assert.equal(client.protocolVersion, '2024-11-05');
      assert.deepEqual(client.serverInfo, { name: 'raw-sse', version: '0.1' });
      assert.equal(client.instructions, 'old school');
      // The order of the steps: [probe →] initialize POST to the URL → GET → initialize to the endpoint.
      // The initialize answer travels on the stream and may overtake its POST's 202: wait for the replies.
      await until(() => rec.log.slice(0, pinned ? 3 : 4).every((e) => e.status !== undefined), 'the replies of the first steps');
      const steps = rec.log
        .slice(0, pinned ? 3 : 4)
        .map((e) => [e.method, new URL(e.url).pathname, e.body?.method, e.status].filter((x) => x !== undefined).join(' '));
      assert.deepEqual(steps, [
        ...(pinned ? [] : ['POST /mcp server/discover 404']),
        'POST /mcp initialize 404',
        'GET /mcp 200',
        'POST /mcp/messages initialize 202',
      ]);
      assert.equal(rec.log[pinned ? 1 : 2]!.headers.accept, 'text/event-stream');
      assert.deepEqual(
        s.received.slice(0, 2).map((m) => m.method),
        ['initialize', 'notifications/initialized'],
      );

      assert.deepEqual(
        (await client.listTools()).tools.map((t) => t.name),
        ['echo', 'slow', 'ask'],
      );
      assert.equal(textOf(await client.callTool('echo', { text: 'hi' })), 'echo: hi');
      const seen: number[] = [];
      assert.equal(textOf(await client.callTool('slow', {}, { onProgress: (p) => seen.push(p.progress) })), 'slow done');
      assert.deepEqual(seen, [1, 2, 3]);
      const prompt = await client.getPrompt('greet', { name: 'Ada' });
      assert.deepEqual(prompt.messages, [{ role: 'user', content: { type: 'text', text: 'Hello, Ada!' } }]);
      assert.deepEqual((await client.readResource('old://x')).contents, [{ uri: 'old://x', mimeType: 'text/plain', text: 'old text' }]);
      assert.deepEqual((await client.complete({ type: 'ref/prompt', name: 'greet' }, { name: 'name', value: 'Ad' })).values, ['Ada']);
      // 2024-11-05 has no completion `context` (2025-06-18 added it): none is sent.
      await client.complete({ type: 'ref/prompt', name: 'greet' }, { name: 'name', value: 'A' }, { other: 'x' });
      assert.equal(s.received.filter((m) => m.method === 'completion/complete').at(-1)!.params.context, undefined);

      const asked = JSON.parse(textOf(await client.callTool('ask')));
      assert.deepEqual(asked, ['hi there', ['file:///work']]);
      assert.deepEqual({ ...h.calls }, { elicit: 0, sample: 1, roots: 1 });
      // The answers went back as POSTs to the endpoint, one per server request.
      const answers = s.received.filter((m) => m.method === undefined && 'result' in m);
      assert.deepEqual(answers.map((m) => m.id).sort(), ['s1', 's2']);
      // Nothing but the endpoint ever got a POST after the fallback; no Streamable HTTP headers there.
      const after = rec.log.slice(pinned ? 3 : 4);
      assert.ok(after.every((e) => e.method === 'POST' && new URL(e.url).pathname === '/mcp/messages'));
      assert.ok(after.every((e) => e.headers['mcp-session-id'] === undefined && e.headers['mcp-protocol-version'] === undefined));
    } finally {
      await client.close();
    }
    // close() ends the stream: the server sees it go, and no socket is left carrying a request.
    await s.conns.settled();
    assert.equal(s.streams.size, 0);
    await s.close();
  });
}

test("this project's server behind a front that refuses Streamable HTTP POSTs: the client lands on its HTTP+SSE endpoint; the battery passes at 2024-11-05", async (t) => {
  const server = buildFixtureServer();
  const handler = createNodeHandler(server);
  // POSTs without ?sessionId= are Streamable HTTP: refuse them as a 2024-11-05-only server would.
  const front = await nodeServer((req, res) => {
    if (req.method === 'POST' && !new URL(req.url!, 'http://x').searchParams.has('sessionId')) return void res.writeHead(404).end();
    handler(req, res);
  });
  t.after(async () => (await handler.close(), await front.close(), server.close()));
  const h = askHandlers();
  const client = await connect(front.url, { protocolVersion: '2024-11-05', ...h.options });
  try {
    assert.equal(client.transportKind, 'sse');
    await t.test('features', () => features(client, '2024-11-05'));
    await t.test('progress over the one stream', () => progress(client, '2024-11-05'));
    await t.test('sampling and roots as server requests on the stream', () => asks(client, '2024-11-05', h));
  } finally {
    await client.close();
  }
  await front.conns.settled();
  await handler.close();
  await front.close();
  await server.close();
});
