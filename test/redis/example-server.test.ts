/**
 * The example server on Redis (`REDIS_URL=… npm run fixture:server`): two processes
 * of test/fixtures/everything/main.js, on their own ports, given only the same REDIS_URL, serve one
 * deployment. An input_required round answered by A is completed by B (the sealing key comes
 * from Redis), and the used state is refused by both (one-time use is shared); a 2025 session
 * opened on A is served by B. Without a reachable Redis the example fails at start with a clear
 * error.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import { EXAMPLE_MAIN } from '../fuzz/stdio-channel.js';
import { HttpPeer } from '../http-e2e/support.js';
import { MODERN } from '../support/common.js';
import { exited, freePort, startExample, stopExample } from '../support/example-process.js';
import { startRedis, type RedisServer } from './support.js';

const CAPS = { elicitation: { form: {} } };
const TOOL = 'test_input_required_result_elicitation';

let redis: RedisServer;
before(async () => {
  redis = await startRedis();
});
after(async () => {
  await redis?.stop();
});

test('two example processes on one REDIS_URL: a round started on A completes on B, and its state is then refused by both', async () => {
  const env = { ...redis.env, JANUS_STATE_SECRET: '' };
  const [a, b] = await Promise.all([startExample(env), startExample(env)]);
  try {
    const [pa, pb] = [new HttpPeer(a.url, MODERN), new HttpPeer(b.url, MODERN)];
    const first = await pa.modern('tools/call', { name: TOOL, arguments: {} }, { caps: CAPS });
    const round = first.messages[0]!.result;
    assert.equal(round.resultType, 'input_required', JSON.stringify(first.messages));
    const retry = {
      name: TOOL,
      arguments: {},
      requestState: round.requestState,
      inputResponses: { user_name: { action: 'accept', content: { name: 'Ada' } } },
    };
    const done = await pb.modern('tools/call', retry, { caps: CAPS });
    assert.deepEqual(done.messages[0]!.result?.content, [{ type: 'text', text: 'Hello, Ada!' }], JSON.stringify(done.messages));
    for (const peer of [pa, pb]) {
      const replay = await peer.modern('tools/call', retry, { caps: CAPS });
      assert.equal(replay.status, 400);
      assert.match(replay.messages[0]!.error?.message ?? '', /already used/);
    }
  } finally {
    await Promise.all([a, b].map(stopExample));
  }
});

test('two example processes on one REDIS_URL: a 2025-11-25 session initialized on A is served by B, and DELETE on B ends it on A', async () => {
  const [a, b] = await Promise.all([startExample(redis.env), startExample(redis.env)]);
  try {
    const onA = new HttpPeer(a.url, '2025-11-25');
    await onA.initialize();
    const onB = new HttpPeer(b.url, '2025-11-25');
    onB.sessionId = onA.sessionId;
    const call = await onB.request('tools/call', { name: 'test_simple_text', arguments: {} });
    assert.equal(call.status, 200);
    assert.equal(call.messages.at(-1)?.result?.content?.[0]?.type, 'text', JSON.stringify(call.messages));
    assert.equal((await onB.send({ method: 'DELETE', headers: onB.sessionHeaders() })).status, 200);
    assert.equal((await onA.request('ping')).status, 404);
    onA.assertClean();
    onB.assertClean();
  } finally {
    await Promise.all([a, b].map(stopExample));
  }
});

test('the example with an unreachable REDIS_URL exits at start with a clear error, not a stack', async () => {
  const child = spawn(process.execPath, [EXAMPLE_MAIN], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', REDIS_URL: `redis://127.0.0.1:${await freePort()}` },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => (stderr += chunk));
  assert.equal(await exited(child), 1);
  assert.match(stderr, /Cannot reach Redis at redis:\/\/127\.0\.0\.1:\d+ .*check that redis-server is running/);
  assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
});
