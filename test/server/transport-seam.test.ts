/**
 * The seam for transport authors, as `janus-mcp/spi` exports it (src/server/transport-seam.ts):
 * a custom transport written against `coreOf(server)` alone, calling itself what it is
 * (`'websocket'`: the transport kind is open), opens one channel per connection that carries
 * both eras (as a dual-era server does: `initialize` makes a session on it, modern `_meta` is
 * served statelessly), gets the tools' `x-mcp-header` declarations, and ends its channel
 * through it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { coreOf, type ChannelHost, type Inbound, type ServerChannel } from '../../src/spi/index.js';
import { createServer, type Server } from '../../src/server/index.js';
import type { JsonRpcMessage } from '../../src/protocol/jsonrpc.js';
import { META_SERVER, MODERN } from '../support/common.js';
import { CLIENT_INFO, modernMeta } from '../support/peer.js';

function seamServer(): Server {
  const server = createServer({ name: 'seam', version: '1.0.0' });
  server.tool(
    'greet',
    { input: { type: 'object', properties: { name: { type: 'string', 'x-mcp-header': 'Name' } } } },
    (args) => `hello ${String(args.name)}`,
  );
  return server;
}

/** A socket-like channel: everything the core says about any payload lands in `out`. */
function channel(server: Server): { inbound: Inbound; session: ServerChannel; out: JsonRpcMessage[]; unsolicited: JsonRpcMessage[] } {
  const out: JsonRpcMessage[] = [];
  const unsolicited: JsonRpcMessage[] = [];
  const host: ChannelHost = { send: (m) => void unsolicited.push(m) };
  const session = coreOf(server).openChannel(host);
  return { inbound: { transport: 'websocket', send: (m) => void out.push(m), channel: session }, session, out, unsolicited };
}

const resultOf = (messages: JsonRpcMessage[], id: number) => {
  const found = messages.find((m) => 'id' in m && m.id === id);
  assert.ok(found && 'result' in found, `a result for request ${id}: ${JSON.stringify(found)}`);
  return found.result;
};

test('a custom transport built on coreOf() serves a legacy session: handshake, then tools/call', async () => {
  const server = seamServer();
  const core = coreOf(server);
  const { inbound, session, out } = channel(server);
  await core.handle(
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT_INFO } },
    inbound,
  );
  assert.equal(resultOf(out, 1).protocolVersion, '2025-11-25');
  assert.equal(server.session(session.id), undefined, 'not a session the server acts on before notifications/initialized');
  await core.handle({ jsonrpc: '2.0', method: 'notifications/initialized' }, inbound);
  const handle = server.session(session.id);
  assert.equal(handle?.protocolVersion, '2025-11-25', 'the channel carries the session the handshake negotiated');
  assert.equal(handle?.transport, 'websocket', 'and the transport names itself');
  await core.handle({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'greet', arguments: { name: 'Ada' } } }, inbound);
  assert.deepEqual(resultOf(out, 2), { content: [{ type: 'text', text: 'hello Ada' }] });
  session.close();
  assert.equal(session.closed, true);
  await core.handle({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, inbound);
  assert.deepEqual(out.at(-1), { jsonrpc: '2.0', id: 3, error: { code: -32600, message: 'Session closed' } });
  server.close();
});

test('the same channel carries 2026-07-28 requests, classified per message; a request-scoped one needs no session', async () => {
  const server = seamServer();
  const core = coreOf(server);
  const { inbound, out } = channel(server);
  const call = { name: 'greet', arguments: { name: 'Grace' }, _meta: modernMeta() };
  await core.handle({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: call }, inbound);
  const modern = resultOf(out, 1);
  assert.equal(modern.resultType, 'complete');
  assert.deepEqual(modern._meta, { [META_SERVER]: { name: 'seam', version: '1.0.0' } });

  const scoped: JsonRpcMessage[] = [];
  const perRequest: Inbound = { transport: 'http', wire: 'modern', send: (m) => void scoped.push(m) };
  await core.handle({ jsonrpc: '2.0', id: 2, method: 'server/discover', params: { _meta: modernMeta() } }, perRequest);
  const versions = resultOf(scoped, 2).supportedVersions;
  assert.ok(Array.isArray(versions) && versions[0] === MODERN, `server/discover lists ${MODERN} first: ${JSON.stringify(versions)}`);
  server.close();
});

test("toolHeaderParams names a tool's x-mcp-header parameters, for HTTP header validation", () => {
  const server = seamServer();
  const core = coreOf(server);
  assert.deepEqual(core.toolHeaderParams('greet'), [{ name: 'Name', property: 'name', path: ['name'], type: 'string' }]);
  assert.equal(core.toolHeaderParams('missing'), undefined);
  assert.equal(core.name, 'seam');
  server.close();
});

test('server.close() ends the channels a transport opened and tells their hosts', () => {
  const server = seamServer();
  let told = 0;
  const channel = coreOf(server).openChannel({ send: () => {}, onSessionClosed: () => void told++ });
  server.close();
  assert.equal(channel.closed, true);
  assert.equal(told, 1);
});

/** A tool that waits until released or aborted, and says which ended its wait. */
function waitingServer(): { server: Server; started: Promise<void>; release: () => void; outcome: Promise<'released' | 'aborted'> } {
  const server = createServer({ name: 'seam', version: '1.0.0' });
  let begin!: () => void;
  let release!: () => void;
  let report!: (o: 'released' | 'aborted') => void;
  const started = new Promise<void>((r) => (begin = r));
  const outcome = new Promise<'released' | 'aborted'>((r) => (report = r));
  server.tool('wait', { input: { type: 'object' } }, async (_args, ctx) => {
    const signal = ctx.signal;
    begin();
    await new Promise<void>((resolve) => {
      release = resolve;
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
    report(signal.aborted ? 'aborted' : 'released');
    return 'done';
  });
  return { server, started, release: () => release(), outcome };
}

for (const era of ['2025-11-25', '2026-07-28'] as const) {
  for (const cancelsOnDrop of [undefined, false] as const) {
    const says = cancelsOnDrop === false ? 'cancelsOnDrop: false keeps it running' : 'by default it is cancelled';
    test(`${era}: a request whose channel drops: ${says}`, async () => {
      const { server, started, release, outcome } = waitingServer();
      const core = coreOf(server);
      const session = core.openChannel({ send: () => {} });
      const setup: Inbound = { transport: 'websocket', send: () => {}, channel: session };
      const params: Record<string, unknown> = { name: 'wait', arguments: {} };
      if (era === '2025-11-25') {
        const init = { protocolVersion: era, capabilities: {}, clientInfo: CLIENT_INFO };
        await core.handle({ jsonrpc: '2.0', id: 0, method: 'initialize', params: init }, setup);
        await core.handle({ jsonrpc: '2.0', method: 'notifications/initialized' }, setup);
      } else {
        params._meta = modernMeta();
      }
      const drop = new AbortController();
      const out: JsonRpcMessage[] = [];
      const inbound: Inbound = {
        transport: 'websocket',
        send: (m) => void out.push(m),
        channel: session,
        signal: drop.signal,
        cancelsOnDrop,
      };
      const handled = core.handle({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }, inbound);
      await started;
      drop.abort(new Error('connection dropped'));
      // Released after the drop: a handler the drop did not reach finishes as released.
      setImmediate(release);
      assert.equal(await outcome, cancelsOnDrop === false ? 'released' : 'aborted');
      await handled;
      if (cancelsOnDrop === false) assert.deepEqual(resultOf(out, 1).content, [{ type: 'text', text: 'done' }]);
      server.close();
    });
  }
}
