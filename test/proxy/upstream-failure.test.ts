/**
 * An upstream that goes away (its process exits): downstream clients get a clear error that
 * names the upstream, and with `reconnect` the proxy starts it again and serves the new
 * process.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { McpError } from '../../src/errors/index.js';
import { createProxy } from '../../src/proxy/index.js';
import { connectInMemory } from '../../src/testing/index.js';
import { fixture } from '../support/common.js';
import { until } from '../support/wait.js';

const UPSTREAM = [process.execPath, fixture('proxy', 'upstream-stdio.js')];
const text = (r: { content: unknown }) => (r.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('');
const UNAVAILABLE = /^upstream "proxy-upstream" \(.*upstream-stdio\.js.*\) is unavailable \(.+\): ./;

for (const version of ['2025-11-25', '2026-07-28'] as const) {
  test(`proxy (${version} client): the upstream exits; calls fail with an McpError naming it, and without reconnect it stays down`, {
    timeout: 30_000,
  }, async () => {
    const proxy = await createProxy(UPSTREAM, { reconnect: false, server: { onError: () => {} } });
    const down = await connectInMemory(proxy.server, { protocolVersion: version });
    try {
      assert.equal(text(await down.client.callTool('crash', {})), 'crashing');
      const error = await until(
        async () => {
          try {
            await down.client.callTool('pid', {});
            return undefined;
          } catch (e) {
            return e;
          }
        },
        'a failing call once the upstream is gone',
        10_000,
      );
      assert.ok(error instanceof McpError, String(error));
      assert.equal(error.code, -32603);
      assert.match(error.message, UNAVAILABLE);
      assert.match(error.message, /not reconnecting/);
      assert.match(error.message, /exited with code 3/);
      // Still down: the same clear error, at once.
      await assert.rejects(down.client.callTool('pid', {}), (e: unknown) => e instanceof McpError && UNAVAILABLE.test(e.message));
    } finally {
      await down.close();
      await proxy.close();
    }
  });
}

test('proxy: a handshake-era upstream that exits is noticed at once (client.onClose) and started again before any call', {
  timeout: 60_000,
}, async () => {
  const proxy = await createProxy([...UPSTREAM, '--legacy'], { reconnect: { attempts: 5, delayMs: 50 }, server: { onError: () => {} } });
  const down = await connectInMemory(proxy.server, { protocolVersion: '2025-06-18' });
  try {
    const firstClient = proxy.upstream;
    assert.equal(firstClient.era, 'legacy');
    const first = text(await down.client.callTool('pid', {}));
    await down.client.callTool('crash', {});
    // No call in between: nothing but the closed connection tells the proxy.
    await until(() => proxy.upstream !== firstClient, 'a new upstream client', 30_000);
    assert.notEqual(text(await down.client.callTool('pid', {})), first);
  } finally {
    await down.close();
    await proxy.close();
  }
});

test('proxy: with reconnect, the upstream is started again and serves the same tools from a new process', { timeout: 60_000 }, async () => {
  const proxy = await createProxy(UPSTREAM, { reconnect: { attempts: 5, delayMs: 50 }, server: { onError: () => {} } });
  const down = await connectInMemory(proxy.server, { protocolVersion: '2026-07-28' });
  try {
    const first = text(await down.client.callTool('pid', {}));
    const firstClient = proxy.upstream;
    await down.client.callTool('crash', {});
    const errors: string[] = [];
    const second = await until(
      async () => {
        try {
          const pid = text(await down.client.callTool('pid', {}));
          return pid !== first && pid;
        } catch (e) {
          errors.push((e as Error).message);
          return undefined;
        }
      },
      'a call answered by a new upstream process',
      30_000,
    );
    assert.notEqual(second, first);
    assert.notEqual(proxy.upstream, firstClient, 'proxy.upstream is the new client');
    for (const message of errors) assert.match(message, UNAVAILABLE);
    assert.ok(errors.length >= 1, 'the gap was reported as an error');
  } finally {
    await down.close();
    await proxy.close();
  }
});
