/**
 * The `requestState` codec seals with node:crypto on Node (synchronous, no thread-pool hop per
 * operation) and with Web Crypto where `process.getBuiltinModule` is missing (other runtimes):
 * the same AES-256-GCM bytes and SHA-256 digests, so a state sealed by one is opened by the
 * other, as instances of one deployment on different runtimes must. Checked both ways, a fresh
 * process without `process.getBuiltinModule` on the other side.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { coreOf, type Inbound } from '../../src/spi/index.js';
import { createServer } from '../../src/server/index.js';

const SERVER = new URL('../../src/server/index.js', import.meta.url).href;
const SPI = new URL('../../src/spi/index.js', import.meta.url).href;
const SECRET = 'request-state-crypto-test-secret-0123456789';
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
  'io.modelcontextprotocol/clientInfo': { name: 'crypto-test', version: '1' },
};

/** The server both sides run: one question, then the answer echoed. Written as source for the other process. */
const DEFINE = `
  const server = createServer({ name: 'asks', version: '1.0.0', requestState: { secrets: [${JSON.stringify(SECRET)}] } });
  server.tool('ask', async (_a, ctx) => {
    const r = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { value: { type: 'string' } } } }, { key: 'name' });
    return 'hello ' + String(r.content?.value);
  });
  const call = (params) => new Promise((resolve) =>
    coreOf(server).handle(
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask', arguments: {}, ...params, _meta: ${JSON.stringify(META)} } },
      { transport: 'http', wire: 'modern', send: resolve },
    ),
  );
`;

function here(): (params: Record<string, unknown>) => Promise<any> {
  const server = createServer({ name: 'asks', version: '1.0.0', requestState: { secrets: [SECRET] } });
  server.tool('ask', async (_a, ctx) => {
    const r = await ctx.elicit(
      { message: 'Name?', requestedSchema: { type: 'object', properties: { value: { type: 'string' } } } },
      { key: 'name' },
    );
    return `hello ${String(r.content?.value)}`;
  });
  return (params) =>
    new Promise((resolve) => {
      const inbound: Inbound = { transport: 'http', wire: 'modern', send: resolve };
      void coreOf(server).handle(
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask', arguments: {}, ...params, _meta: META } },
        inbound,
      );
    });
}

/** Runs `body` in a fresh process without process.getBuiltinModule (Web Crypto only); prints JSON. */
function webCryptoOnly(body: string): any {
  const script = `
    delete process.getBuiltinModule;
    const { createServer } = await import(${JSON.stringify(SERVER)});
    const { coreOf } = await import(${JSON.stringify(SPI)});
    ${DEFINE}
    ${body}
  `;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
}

const ANSWERS = { name: { action: 'accept', content: { value: 'Ada' } } };

test('a state sealed with Web Crypto is opened with node:crypto', async () => {
  const first = webCryptoOnly(`const r = await call({}); console.log(JSON.stringify(r));`);
  assert.equal(first.result.resultType, 'input_required');
  const retry = await here()({ requestState: first.result.requestState, inputResponses: ANSWERS });
  assert.deepEqual(retry.result.content, [{ type: 'text', text: 'hello Ada' }]);
});

test('a state sealed with node:crypto is opened with Web Crypto; a changed one is refused by both', async () => {
  const first = await here()({});
  assert.equal(first.result.resultType, 'input_required');
  const state: string = first.result.requestState;
  const last = state.at(-2) === 'A' ? 'B' : 'A';
  const tampered = `${state.slice(0, -2)}${last}${state.at(-1)}`;
  const out = webCryptoOnly(`
    const ok = await call({ requestState: ${JSON.stringify(state)}, inputResponses: ${JSON.stringify(ANSWERS)} });
    const bad = await call({ requestState: ${JSON.stringify(tampered)}, inputResponses: ${JSON.stringify(ANSWERS)} });
    console.log(JSON.stringify({ ok, bad }));
  `);
  assert.deepEqual(out.ok.result.content, [{ type: 'text', text: 'hello Ada' }]);
  assert.equal(out.bad.error.code, -32602);
  const badHere = await here()({ requestState: tampered, inputResponses: ANSWERS });
  assert.equal(badHere.error.code, -32602);
});
