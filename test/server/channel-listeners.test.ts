/**
 * A channel's own signal outlives its requests (a stdio channel serves thousands): a request
 * whose handler or middleware reads `ctx.signal` listens to it only while the request runs.
 */
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { test } from 'node:test';
import type { JsonRpcMessage } from '../../src/protocol/index.js';
import { coreOf, type Inbound } from '../../src/spi/index.js';
import { createServer } from '../../src/server/index.js';

const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

test('requests that read ctx.signal leave no listener on the channel signal, in both eras and through middleware', async () => {
  const server = createServer({ name: 'listeners', version: '1' });
  let read = 0;
  server.use((ctx, next) => {
    if (ctx.signal.aborted) throw new Error('unexpected');
    return next();
  });
  server.tool('wait', (_args, ctx) => {
    read += ctx.signal.aborted ? 0 : 1;
    return 'ok';
  });
  const channel = new AbortController();
  const sent: JsonRpcMessage[] = [];
  const core = coreOf(server);
  const session = core.openChannel({ send: (m) => sent.push(m) });
  const inbound: Inbound = { transport: 'memory', send: (m) => sent.push(m), signal: channel.signal, channel: session };
  await core.handle(
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    },
    inbound,
  );
  await core.handle({ jsonrpc: '2.0', method: 'notifications/initialized' }, inbound);
  for (let i = 1; i <= 30; i++) {
    await core.handle({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'wait' } }, inbound);
    await core.handle({ jsonrpc: '2.0', id: `m${i}`, method: 'tools/call', params: { name: 'wait', _meta: MODERN_META } }, inbound);
  }
  assert.equal(read, 60);
  assert.equal(sent.filter((m) => 'result' in m).length, 61);
  assert.equal(getEventListeners(channel.signal, 'abort').length, 0);
  server.close();
});
