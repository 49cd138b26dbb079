/**
 * The build without the handshake era serves 2026-07-28 alone, and says so clearly: its example
 * server (`npm run fixture:server:modern-only`, a real child process) answers a 2026-07-28
 * client over Streamable HTTP on 127.0.0.1 and over stdio, lists only 2026-07-28 in
 * `server/discover`, answers a 2025 `initialize` with -32022 naming the revisions it speaks,
 * and a GET or DELETE with 405; its client, pointed at a server of the handshake era only
 * (@modelcontextprotocol/server-everything), fails with an error that says why. Run by
 * `npm run test:modern-only` against that build, never against the full one.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { connect } from '../../src/client/index.js';
import { ErrorCode, JanusError } from '../../src/errors/index.js';
import { EXAMPLE_MAIN } from '../fuzz/stdio-channel.js';
import { type ExampleProcess, startExample, stopExample } from '../support/example-process.js';
import { modernMeta } from '../support/peer.js';
import { everythingEntry } from '../support/server-everything.js';

const MODERN = '2026-07-28';

/** A raw POST of one JSON-RPC message, as a client of either era would send it. */
async function post(url: URL, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: Record<string, any> }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

describe('the example server of the build without the handshake era, over Streamable HTTP', () => {
  let example: ExampleProcess;
  before(async () => {
    example = await startExample();
  });
  after(() => stopExample(example));

  test('a 2026-07-28 client discovers it, negotiates 2026-07-28 and calls a tool', async () => {
    const client = await connect(example.url.href);
    try {
      assert.equal(client.era, 'modern');
      assert.equal(client.protocolVersion, MODERN);
      const { tools } = await client.listTools();
      assert.ok(tools.length > 0);
    } finally {
      await client.close();
    }
  });

  test('server/discover lists 2026-07-28 alone', async () => {
    const { status, json } = await post(
      example.url,
      { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: modernMeta() } },
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'server/discover' },
    );
    assert.equal(status, 200);
    assert.deepEqual(json.result.supportedVersions, [MODERN]);
  });

  test('a 2025 initialize gets -32022 naming the revisions it speaks, and opens no session', async () => {
    const res = await fetch(example.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
      }),
    });
    const json = (await res.json()) as Record<string, any>;
    assert.equal(res.status, 400);
    assert.equal(res.headers.get('mcp-session-id'), null);
    assert.equal(json.error.code, ErrorCode.UnsupportedProtocolVersion);
    assert.match(json.error.message, /speaks only 2026-07-28/);
    assert.deepEqual(json.error.data.supported, [MODERN]);
    assert.equal(json.error.data.requested, '2025-11-25');
  });

  test('GET and DELETE are 405: the stateless era has neither', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(example.url, { method, headers: { accept: 'text/event-stream', 'mcp-session-id': 'any' } });
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.get('allow'), 'POST', method);
      await res.body?.cancel();
    }
  });
});

test('over stdio: a 2025 initialize gets -32022 naming the revisions it speaks; a 2026-07-28 request is answered', async () => {
  const child = spawn(process.execPath, [EXAMPLE_MAIN, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: Array<Record<string, any>> = [];
  let buffer = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      lines.push(JSON.parse(buffer.slice(0, i)) as Record<string, any>);
      buffer = buffer.slice(i + 1);
    }
  });
  const answer = (id: number) =>
    new Promise<Record<string, any>>((resolve) => {
      const poll = setInterval(() => {
        const found = lines.find((m) => m.id === id);
        if (found) {
          clearInterval(poll);
          resolve(found);
        }
      }, 10);
    });
  const init = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'old', version: '1' } };
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: init })}\n`);
  const refused = await answer(1);
  assert.equal(refused.error.code, ErrorCode.UnsupportedProtocolVersion);
  assert.deepEqual(refused.error.data.supported, [MODERN]);
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: modernMeta() } })}\n`);
  const listed = await answer(2);
  assert.equal(listed.result.resultType, 'complete');
  child.stdin.end();
  await new Promise((resolve) => child.once('exit', resolve));
});

test('its client, pointed at a server of the handshake era only, fails saying why', async (t) => {
  const entry = everythingEntry();
  if (entry === undefined) return t.skip('@modelcontextprotocol/server-everything is not installed');
  await assert.rejects(
    connect({ command: process.execPath, args: [entry, 'stdio'] }, { probeTimeoutMs: 3000 }),
    (e) =>
      e instanceof JanusError &&
      /the server looks like a handshake-era one \(server\/discover got a JSON-RPC error\)/.test(e.message) &&
      /leaves the handshake era out and speaks 2026-07-28/.test(e.message),
  );
  await assert.rejects(
    connect({ command: process.execPath, args: [entry, 'stdio'] }, { protocolVersion: '2025-06-18' }),
    (e) => e instanceof JanusError && /cannot connect at 2025-06-18, as the options ask: this build of janus-mcp leaves/.test(e.message),
  );
});
