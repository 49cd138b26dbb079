/**
 * Ajv (raw JSON Schema validation) is loaded with the first raw JSON Schema, not with
 * `janus-mcp/server` (nothing loaded that the first request does not need; its import
 * was a third of the server's cold start): checked in fresh processes, over a real socket.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';

const SERVER = new URL('../../src/server/index.js', import.meta.url).href;
const HTTP = new URL('../../src/transports/http/index.js', import.meta.url).href;

function run(body: string): Record<string, unknown> {
  const script = `
    import { createRequire } from 'node:module';
    const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((k) => /[\\\\/]node_modules[\\\\/]ajv[\\\\/]/.test(k));
    const { createServer } = await import(${JSON.stringify(SERVER)});
    const { serveHttp } = await import(${JSON.stringify(HTTP)});
    const { z } = await import('zod');
    const call = async (port, name, args) => {
      const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
      const res = await fetch('http://127.0.0.1:' + port + '/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args, _meta: meta } }),
      });
      return (await res.json()).result;
    };
    ${body}
  `;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as Record<string, unknown>;
}

test('a server of Zod tools answers its first call without loading Ajv', () => {
  const out = run(`
    const server = createServer({ name: 'lazy', version: '1' });
    server.tool('echo', { input: z.object({ text: z.string() }) }, ({ text }) => text);
    const http = await serveHttp(server, { port: 0, host: '127.0.0.1' });
    const result = await call(http.port, 'echo', { text: 'hi' });
    await http.close();
    console.log(JSON.stringify({ text: result.content[0].text, ajv: loaded() }));
  `);
  assert.deepStrictEqual(out, { text: 'hi', ajv: false });
});

test('registering a raw JSON Schema loads Ajv then: its arguments are validated, and a bad schema still fails the registration', () => {
  const out = run(`
    const server = createServer({ name: 'lazy', version: '1' });
    const before = loaded();
    server.tool('n', { input: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } }, ({ n }) => String(n));
    const after = loaded();
    let refused = '';
    try {
      server.tool('bad', { input: { type: 'object', properties: { n: { type: 12 } } } }, () => 'x');
    } catch (e) {
      refused = e.message;
    }
    const http = await serveHttp(server, { port: 0, host: '127.0.0.1' });
    const ok = await call(http.port, 'n', { n: 3 });
    const wrong = await call(http.port, 'n', { n: 'three' });
    await http.close();
    console.log(JSON.stringify({ before, after, refused: /not a valid JSON Schema/.test(refused), ok: ok.content[0].text, wrong: wrong.isError === true }));
  `);
  assert.deepStrictEqual(out, { before: false, after: true, refused: true, ok: '3', wrong: true });
});

test('without a synchronous loader (no process.getBuiltinModule), a raw JSON Schema is compiled on its first call', () => {
  const out = run(`
    delete process.getBuiltinModule;
    const server = createServer({ name: 'lazy', version: '1' });
    server.tool('n', { input: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } }, ({ n }) => String(n));
    const registered = loaded();
    const http = await serveHttp(server, { port: 0, host: '127.0.0.1' });
    const ok = await call(http.port, 'n', { n: 3 });
    const wrong = await call(http.port, 'n', { n: 'three' });
    await http.close();
    console.log(JSON.stringify({ registered, ok: ok.content[0].text, wrong: wrong.isError === true, after: loaded() }));
  `);
  assert.deepStrictEqual(out, { registered: false, ok: '3', wrong: true, after: true });
});
