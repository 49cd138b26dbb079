/**
 * The runtime's crypto is loaded with the first `requestState` a server seals or opens, not
 * with `createServer` (nothing loaded that the first request does not need). The
 * default secret, made at random, was 5 ms of a cold start spent loading Web Crypto. Checked
 * in a fresh process, over a real socket, with `node:http` as the client (the process's only
 * other code).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';

const SERVER = new URL('../../src/server/index.js', import.meta.url).href;
const HTTP = new URL('../../src/transports/http/index.js', import.meta.url).href;

test('a server answers its first call without loading crypto; its first MRTR round then seals and opens a requestState', () => {
  const script = `
    import { request } from 'node:http';
    const crypto = () => process.moduleLoadList.filter((m) => m.includes('crypto'));
    const { createServer } = await import(${JSON.stringify(SERVER)});
    const { serveHttp } = await import(${JSON.stringify(HTTP)});
    const server = createServer({ name: 'lazy', version: '1' });
    server.tool('echo', () => 'hi');
    server.tool('ask', async (_args, ctx) => {
      const r = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } }, { key: 'name' });
      return 'hello ' + r.content.name;
    });
    const http = await serveHttp(server, { port: 0, host: '127.0.0.1' });
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
    const call = (name, extra = {}) => new Promise((resolve, reject) => {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {}, _meta: meta, ...extra } });
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name };
      const req = request({ host: '127.0.0.1', port: http.port, path: '/mcp', method: 'POST', headers }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve(JSON.parse(text).result));
      });
      req.on('error', reject);
      req.end(body);
    });
    const first = await call('echo');
    const before = crypto();
    const round = await call('ask');
    const done = await call('ask', { requestState: round.requestState, inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } } });
    await http.close();
    console.log(JSON.stringify({ first: first.content[0].text, before, round: round.resultType, done: done.content[0].text, after: crypto().length > 0 }));
  `;
  const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
  assert.deepStrictEqual(out, { first: 'hi', before: [], round: 'input_required', done: 'hello Ada', after: true });
});
