/**
 * Proxies sharing a cluster that keeps no continuation relay of its own (a `Cluster` made in
 * this process): the proxies created with that same cluster object relay retries to each other
 * in memory, each served over HTTP on 127.0.0.1. A closed instance's rounds are refused with
 * -32602 on the others.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createProxy } from '../../src/proxy/index.js';
import { type Cluster, InMemoryRequestStateStore, LocalBackplane } from '../../src/spi/index.js';
import { serveHttp } from '../../src/transports/http/index.js';
import { HttpPeer } from '../http-e2e/support.js';
import { answers, callRaw, type ElicitingUpstream, MODERN, startElicitingUpstream } from './eliciting-upstream.js';

let upstream: ElicitingUpstream;
before(async () => {
  upstream = await startElicitingUpstream();
});
after(() => upstream.close());

async function instance(cluster: Cluster) {
  const proxy = await createProxy(upstream.url.href, { reconnect: false, server: { cluster } });
  const http = await serveHttp(proxy.server, { host: '127.0.0.1', port: 0 });
  let closed = false;
  return {
    peer: new HttpPeer(http.url, MODERN),
    async close() {
      if (closed) return;
      closed = true;
      await http.close();
      await proxy.close();
    },
  };
}

const newCluster = (): Cluster => ({
  backplane: new LocalBackplane(),
  requestState: { secrets: ['proxy-cluster-local-test-secret'], store: new InMemoryRequestStateStore() },
});

test('in one process: a round started on A is answered through B, and once A is closed its rounds are refused on B', async () => {
  const cluster = newCluster();
  const a = await instance(cluster);
  const b = await instance(cluster);
  const loner = await instance(newCluster());
  try {
    const args = { arguments: { tag: 'local' } };
    const first = await callRaw(a.peer, 'two_names', args);
    assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
    const second = await callRaw(b.peer, 'two_names', {
      ...args,
      requestState: first.result.requestState,
      inputResponses: answers(first.result.inputRequests, 'Ada'),
    });
    assert.equal(second.result?.resultType, 'input_required', JSON.stringify(second));

    // A proxy of another cluster finds no instance of its own holding the round.
    const elsewhere = await callRaw(loner.peer, 'two_names', {
      ...args,
      requestState: second.result.requestState,
      inputResponses: answers(second.result.inputRequests, 'Lovelace'),
    });
    assert.equal(elsewhere.error?.code, -32602, JSON.stringify(elsewhere));
    assert.deepEqual(elsewhere.error.data, { reason: 'owner_gone' });
    assert.match(elsewhere.error.message, /which is no longer running \(or is not of this cluster\)/);

    const done = await callRaw(b.peer, 'two_names', {
      ...args,
      requestState: second.result.requestState,
      inputResponses: answers(second.result.inputRequests, 'Lovelace'),
    });
    assert.deepEqual(done.result?.content, [{ type: 'text', text: 'hello Ada Lovelace' }], JSON.stringify(done));
    assert.deepEqual(upstream.calls('local'), { started: 1, completed: 1, failed: 0, cancelled: 0 });

    const waiting = await callRaw(a.peer, 'ask_name', args);
    await a.close();
    const orphan = await callRaw(b.peer, 'ask_name', {
      ...args,
      requestState: waiting.result.requestState,
      inputResponses: answers(waiting.result.inputRequests, 'Ada'),
    });
    assert.equal(orphan.error?.code, -32602, JSON.stringify(orphan));
    assert.deepEqual(orphan.error.data, { reason: 'owner_gone' });
    assert.match(orphan.error.message, /which is no longer running .*Call the tool again without requestState to start over/);
    for (const p of [a.peer, b.peer, loner.peer]) p.assertClean();
  } finally {
    await a.close();
    await b.close();
    await loner.close();
  }
});

test('without a cluster, a round of another proxy is refused with a hint that instances need a shared cluster', async () => {
  const a = await instance(newCluster());
  const proxy = await createProxy(upstream.url.href, { reconnect: false });
  const http = await serveHttp(proxy.server, { host: '127.0.0.1', port: 0 });
  try {
    const round = await callRaw(a.peer, 'ask_name');
    const refused = await callRaw(new HttpPeer(http.url, MODERN), 'ask_name', {
      requestState: round.result.requestState,
      inputResponses: answers(round.result.inputRequests, 'Ada'),
    });
    assert.equal(refused.error?.code, -32602, JSON.stringify(refused));
    assert.match(refused.error.message, /issued by another proxy instance: without a cluster shared by the instances/);
  } finally {
    await http.close();
    await proxy.close();
    await a.close();
  }
});
