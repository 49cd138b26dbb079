/**
 * How long a proxied round waits for its retry (`continuationTimeoutMs`): a 2026-07-28 client
 * calls a handshake-era upstream tool that elicits, through the proxy served over HTTP on
 * 127.0.0.1. A round retried in time goes on with the same upstream call; one that is not is
 * dropped (its upstream call cancelled), and the late retry is refused with -32602 telling the
 * client to call the tool again.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createProxy } from '../../src/proxy/index.js';
import { serveHttp } from '../../src/transports/http/index.js';
import { HttpPeer } from '../http-e2e/support.js';
import { until } from '../support/wait.js';
import { answers, callRaw, type ElicitingUpstream, MODERN, startElicitingUpstream } from './eliciting-upstream.js';

let upstream: ElicitingUpstream;
before(async () => {
  upstream = await startElicitingUpstream();
});
after(() => upstream.close());

async function proxied(continuationTimeoutMs: number) {
  const proxy = await createProxy(upstream.url.href, { continuationTimeoutMs, reconnect: false });
  const http = await serveHttp(proxy.server, { host: '127.0.0.1', port: 0 });
  return {
    peer: new HttpPeer(http.url, MODERN),
    async close() {
      await http.close();
      await proxy.close();
    },
  };
}

test('continuationTimeoutMs: a round not retried in time is dropped, its upstream call cancelled, and the late retry refused with -32602', async () => {
  const { peer, close } = await proxied(300);
  try {
    const args = { arguments: { tag: 'expired' } };
    const round = await callRaw(peer, 'ask_name', args);
    assert.equal(round.result?.resultType, 'input_required', JSON.stringify(round));
    // The timeout ends the upstream call: the upstream sees it cancelled, or its question fail
    // as the call's stream closes, whichever comes first.
    await until(() => upstream.calls('expired').cancelled + upstream.calls('expired').failed > 0, 'the upstream call to end', 20_000);

    const late = await callRaw(peer, 'ask_name', {
      ...args,
      requestState: round.result.requestState,
      inputResponses: answers(round.result.inputRequests, 'Ada'),
    });
    assert.equal(late.error?.code, -32602, JSON.stringify(late));
    assert.match(late.error.message, /expired: no retry answered the round within 0\.3 s/);
    assert.match(late.error.message, /Call the tool again without requestState/);
    assert.deepEqual(late.error.data, { reason: 'expired' });
    assert.equal(upstream.calls('expired').started, 1, 'the late retry starts nothing upstream');
    assert.equal(upstream.calls('expired').completed, 0);
    peer.assertClean();
  } finally {
    await close();
  }
});

test('continuationTimeoutMs: rounds retried within it go on with the same upstream call, each round with the whole time', async () => {
  const { peer, close } = await proxied(60_000);
  try {
    const before = { started: upstream.started, completed: upstream.completed };
    const first = await callRaw(peer, 'two_names');
    assert.equal(first.result?.resultType, 'input_required');
    const second = await callRaw(peer, 'two_names', {
      requestState: first.result.requestState,
      inputResponses: answers(first.result.inputRequests, 'Ada'),
    });
    assert.equal(second.result?.resultType, 'input_required', JSON.stringify(second));
    assert.notEqual(second.result.requestState, first.result.requestState, 'a new state each round');
    const done = await callRaw(peer, 'two_names', {
      requestState: second.result.requestState,
      inputResponses: answers(second.result.inputRequests, 'Lovelace'),
    });
    assert.deepEqual(done.result?.content, [{ type: 'text', text: 'hello Ada Lovelace' }], JSON.stringify(done));
    assert.equal(upstream.started, before.started + 1);
    assert.equal(upstream.completed, before.completed + 1);

    const replay = await callRaw(peer, 'two_names', {
      requestState: first.result.requestState,
      inputResponses: answers(first.result.inputRequests, 'Eve'),
    });
    assert.equal(replay.error?.code, -32602);
    assert.match(replay.error.message, /already used/);
    assert.deepEqual(replay.error.data, { reason: 'used' });
    peer.assertClean();
  } finally {
    await close();
  }
});

test('continuationTimeoutMs must be a whole number of milliseconds above 0', async () => {
  for (const bad of [0, -1, 1.5, Number.NaN, 2 ** 31]) {
    await assert.rejects(createProxy(upstream.url.href, { continuationTimeoutMs: bad }), {
      name: 'TypeError',
      message: /continuationTimeoutMs is a whole number of milliseconds above 0/,
    });
  }
});
