/**
 * Proxy instances behind one URL, on one real Redis (test/fixtures/proxy/cluster-proxy.ts: each
 * its own process, `createProxy` with a `redisCluster`, served on 127.0.0.1), in front of one
 * handshake-era upstream that elicits: a 2026-07-28
 * client's retry may reach any instance. The instance that gets it relays the answers to the
 * one holding the upstream call and the outcome back, so the upstream call runs once. When the
 * holder is gone (killed) or silent (paused), the retry is refused with -32602 asking the client
 * to start over, and the call is given up rather than finished for no one.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { connect } from '../../src/client/index.js';
import { CONTINUATION_RELAY } from '../../src/proxy/index.js';
import { redisCluster } from '../../src/redis/index.js';
import { exited } from '../support/example-process.js';
import { HttpPeer } from '../http-e2e/support.js';
import { rpc, startBalancer } from '../redis/balancer.js';
import { type RedisServer, startRedis } from '../redis/support.js';
import type { Msg } from '../support/common.js';
import { until } from '../support/wait.js';
import { answers, CAPS, callRaw, type ElicitingUpstream, MODERN, startElicitingUpstream } from './eliciting-upstream.js';

let redis: RedisServer;
let upstream: ElicitingUpstream;
before(async () => {
  redis = await startRedis();
  upstream = await startElicitingUpstream();
});
after(async () => {
  await upstream?.close();
  await redis?.stop();
});

const CLUSTER_PROXY = fileURLToPath(new URL('../fixtures/proxy/cluster-proxy.js', import.meta.url));

interface Running {
  readonly child: ChildProcess;
  readonly exit: Promise<number | null>;
  stderr(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

interface Instance {
  readonly running: Running;
  readonly url: URL;
  readonly peer: HttpPeer;
}

async function startInstance(): Promise<Instance> {
  const child = spawn(process.execPath, [CLUSTER_PROXY, '--redis', redis.url, '--upstream', upstream.url.href], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exit = exited(child);
  let ended = false;
  void exit.then(() => (ended = true));
  const running: Running = {
    child,
    exit,
    stderr: () => err,
    stop() {
      if (!ended) child.kill('SIGTERM');
      return exit;
    },
  };
  let m: RegExpExecArray;
  try {
    m = await until(
      () => {
        if (ended) assert.fail(`the proxy instance exited before listening: ${err}`);
        return /listening on (http:\/\/\S+)/.exec(err);
      },
      'the proxy instance to print its URL',
      30_000,
    );
  } catch (error) {
    // Not left behind: the caller only stops the instances that started.
    child.kill('SIGKILL');
    await exit;
    throw new Error(`${error instanceof Error ? error.message : String(error)}; its stderr: ${err || '(nothing)'}`, { cause: error });
  }
  const url = new URL(m[1]!);
  return { running, url, peer: new HttpPeer(url, MODERN) };
}

test('redisCluster() keeps the relay janus-mcp/proxy looks up', async () => {
  const cluster = await redisCluster({ url: redis.url });
  try {
    const relay = cluster.stores.get(CONTINUATION_RELAY);
    assert.equal(typeof relay?.send, 'function');
    assert.equal(await relay!.send('no-such-instance', '{}'), false, 'no instance listens under that id');
  } finally {
    await cluster.close();
  }
});

/** Two instances; `use` runs with them, and they are stopped after (one already killed is left alone). */
async function withInstances(use: (a: Instance, b: Instance) => Promise<void>): Promise<void> {
  const started = await Promise.allSettled([startInstance(), startInstance()]);
  const instances = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  try {
    for (const s of started) if (s.status === 'rejected') throw s.reason;
    await use(instances[0]!, instances[1]!);
  } finally {
    for (const { running } of instances) {
      if (running.child.exitCode === null && running.child.signalCode === null) {
        process.kill(running.child.pid!, 'SIGCONT');
        assert.equal(await running.stop(), 0, running.stderr());
      }
    }
  }
}

test('a round started on instance A is retried through B, twice: the upstream call runs once, a used state is refused on A and B, and progress and logs come through B', async () => {
  await withInstances(async (a, b) => {
    const before = { started: upstream.started, completed: upstream.completed };
    const first = await callRaw(a.peer, 'two_names');
    assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));

    const second = await callRaw(b.peer, 'two_names', {
      requestState: first.result.requestState,
      inputResponses: answers(first.result.inputRequests, 'Ada'),
    });
    assert.equal(second.result?.resultType, 'input_required', JSON.stringify(second));
    const [ask] = Object.values(second.result.inputRequests) as Array<{ method: string; params: { message: string } }>;
    assert.equal(ask?.method, 'elicitation/create');
    assert.equal(ask?.params.message, 'Last name?', 'the same upstream call asks its second question');

    const done = await callRaw(b.peer, 'two_names', {
      requestState: second.result.requestState,
      inputResponses: answers(second.result.inputRequests, 'Lovelace'),
    });
    assert.deepEqual(done.result?.content, [{ type: 'text', text: 'hello Ada Lovelace' }], JSON.stringify(done));
    assert.equal(upstream.started, before.started + 1, 'the upstream call ran once');
    assert.equal(upstream.completed, before.completed + 1);

    for (const [peer, round, name] of [
      [a.peer, first, 'Eve'],
      [b.peer, first, 'Eve'],
      [a.peer, second, 'Eve'],
      [b.peer, second, 'Eve'],
    ] as const) {
      const replay = await callRaw(peer, 'two_names', {
        requestState: round.result.requestState,
        inputResponses: answers(round.result.inputRequests, name),
      });
      assert.equal(replay.error?.code, -32602, JSON.stringify(replay));
      assert.deepEqual(replay.error.data, { reason: 'used' });
    }
    // The relayed retry checks the binding at the holder, as a retry of its own.
    const third = await callRaw(a.peer, 'ask_name');
    const otherTool = await callRaw(b.peer, 'two_names', {
      requestState: third.result.requestState,
      inputResponses: answers(third.result.inputRequests, 'Eve'),
    });
    assert.equal(otherTool.error?.code, -32602, JSON.stringify(otherTool));
    assert.match(otherTool.error.message, /issued for another tool call/);
    const right = await callRaw(b.peer, 'ask_name', {
      requestState: third.result.requestState,
      inputResponses: answers(third.result.inputRequests, 'Grace'),
    });
    assert.deepEqual(right.result?.content, [{ type: 'text', text: 'hello Grace' }], JSON.stringify(right));

    // The holder's progress and log messages reach the retry's client through B.
    const asked = await callRaw(a.peer, 'ask_and_report');
    const reported = await b.peer.modern(
      'tools/call',
      {
        name: 'ask_and_report',
        arguments: {},
        requestState: asked.result.requestState,
        inputResponses: answers(asked.result.inputRequests, 'Ada'),
      },
      { caps: CAPS, meta: { progressToken: 'relayed', 'io.modelcontextprotocol/logLevel': 'debug' } },
    );
    const [progress, log, last] = [
      reported.messages.find((m) => m.method === 'notifications/progress'),
      reported.messages.find((m) => m.method === 'notifications/message'),
      reported.messages.at(-1),
    ];
    assert.deepEqual(
      progress?.params,
      { progressToken: 'relayed', progress: 1, total: 2, message: 'asked Ada' },
      JSON.stringify(reported.messages),
    );
    assert.deepEqual(log?.params, { level: 'info', logger: 'eliciting-upstream', data: { got: 'Ada' } }, JSON.stringify(reported.messages));
    assert.deepEqual(last?.result?.content, [{ type: 'text', text: 'hello Ada' }]);
    a.peer.assertClean();
    b.peer.assertClean();
  });
});

test('the repo client behind a round-robin balancer: its retries land on the other instance, and the call completes', async () => {
  await withInstances(async (a, b) => {
    const balancer = await startBalancer([a.url, b.url]);
    const before = { started: upstream.started, completed: upstream.completed };
    const client = await connect(balancer.url, {
      protocolVersion: MODERN,
      onElicit: async (params) => ({ action: 'accept', content: { name: params.message === 'First name?' ? 'Ada' : 'Lovelace' } }),
    });
    try {
      const result = await client.callTool('two_names');
      assert.deepEqual(result.content, [{ type: 'text', text: 'hello Ada Lovelace' }]);
      const calls = balancer.log.filter((f) => rpc(f)[0]?.method === 'tools/call');
      assert.equal(calls.length, 3, 'a call and its two retries');
      assert.deepEqual(new Set(calls.map((f) => f.instance)), new Set([0, 1]), 'the retries went to both instances');
      assert.equal(upstream.started, before.started + 1);
      assert.equal(upstream.completed, before.completed + 1);
    } finally {
      await client.close();
      await balancer.close();
    }
  });
});

test('the instance holding the call is killed: the retry on B is refused with -32602 at once, and a new call through B starts over', async () => {
  await withInstances(async (a, b) => {
    const args = { arguments: { tag: 'killed' } };
    const round = await callRaw(a.peer, 'ask_name', args);
    assert.equal(round.result?.resultType, 'input_required', JSON.stringify(round));
    process.kill(a.running.child.pid!, 'SIGKILL');
    await a.running.exit;

    const retry = await callRaw(b.peer, 'ask_name', {
      ...args,
      requestState: round.result.requestState,
      inputResponses: answers(round.result.inputRequests, 'Ada'),
    });
    assert.equal(retry.error?.code, -32602, JSON.stringify(retry));
    assert.deepEqual(retry.error.data, { reason: 'owner_gone' });
    assert.match(retry.error.message, /held by another proxy instance, which is no longer running/);
    assert.match(retry.error.message, /Call the tool again without requestState to start over/);
    assert.equal(upstream.calls('killed').started, 1, 'nothing is replayed upstream');

    const again = await callRaw(b.peer, 'ask_name', args);
    const done = await callRaw(b.peer, 'ask_name', {
      ...args,
      requestState: again.result.requestState,
      inputResponses: answers(again.result.inputRequests, 'Ada'),
    });
    assert.deepEqual(done.result?.content, [{ type: 'text', text: 'hello Ada' }], JSON.stringify(done));
    assert.equal(upstream.calls('killed').started, 2, 'the new call started over');
    assert.equal(upstream.calls('killed').completed, 1);
  });
});

test('the instance holding the call is paused: the retry on B is refused after 10 s of silence, and A gives the call up when it runs again', async () => {
  await withInstances(async (a, b) => {
    const args = { arguments: { tag: 'paused' } };
    const round = await callRaw(a.peer, 'ask_name', args);
    assert.equal(round.result?.resultType, 'input_required', JSON.stringify(round));
    process.kill(a.running.child.pid!, 'SIGSTOP');
    let retry: Msg;
    try {
      retry = await callRaw(b.peer, 'ask_name', {
        ...args,
        requestState: round.result.requestState,
        inputResponses: answers(round.result.inputRequests, 'Ada'),
      });
    } finally {
      process.kill(a.running.child.pid!, 'SIGCONT');
    }
    assert.equal(retry.error?.code, -32602, JSON.stringify(retry));
    assert.deepEqual(retry.error.data, { reason: 'owner_gone' });
    assert.match(retry.error.message, /did not answer within 10 s; the call is given up/);
    // A got the retry and the cancellation together: it ends the upstream call (cancelled, or its
    // question failed as the call's stream closed, whichever the upstream sees first) and never
    // passes the answer on.
    await until(
      () => upstream.calls('paused').cancelled + upstream.calls('paused').failed > 0,
      'the upstream call to end without an answer',
      20_000,
    );
    assert.equal(upstream.calls('paused').completed, 0);
    const replay = await callRaw(a.peer, 'ask_name', {
      ...args,
      requestState: round.result.requestState,
      inputResponses: answers(round.result.inputRequests, 'Ada'),
    });
    assert.equal(replay.error?.code, -32602, JSON.stringify(replay));
  });
});
