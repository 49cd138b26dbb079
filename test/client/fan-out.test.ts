/**
 * What a server can make the client do is bounded (src/client/limits.ts):
 * - one `input_required` round carries at most `maxInputRequests` asks (default 16), and a
 *   request takes at most `maxInputRounds` rounds (mrtr.mdx);
 * - at most `maxServerRequests` legacy server-to-client requests are served at once (default
 *   16); one more is refused with a JSON-RPC error at once (JSON-RPC 2.0 §5: every request is
 *   answered), and reaches no handler. client/sampling.mdx and client/elicitation.mdx
 *   §Security Considerations: clients SHOULD implement rate limiting;
 * - progress restarts a request's timeout, but `maxTotalTimeoutMs` holds regardless
 *   (basic/lifecycle.mdx §Timeouts: a maximum timeout regardless of progress notifications);
 * - a `listen()` stream holds at most `maxQueuedNotifications` (default 1000) for a slow reader.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connect, type ConnectOptions } from '../../src/client/index.js';
import type { Msg } from '../support/common.js';
import { deferred, until } from '../support/wait.js';
import { initializeResult, scripted, textOf } from './helpers.js';

const ASK = {
  method: 'elicitation/create',
  params: { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } },
};

/** `n` asks, keyed q0 … q{n-1}. */
const asks = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`q${i}`, ASK]));

/** A 2026-07-28 server whose tools/call asks for `n` inputs in its first round and completes on the retry. */
async function asking(n: number, options: ConnectOptions = {}) {
  let elicited = 0;
  const s = scripted((msg) => {
    if (msg.method !== 'tools/call') return { error: { code: -32601, message: 'no' } };
    if (!msg.params.inputResponses) return { resultType: 'input_required', inputRequests: asks(n), requestState: 'st' };
    return { resultType: 'complete', content: [{ type: 'text', text: `${Object.keys(msg.params.inputResponses).length} answers` }] };
  });
  const client = await connect(s.transport, {
    era: 'modern',
    onElicit: () => (elicited++, { action: 'accept', content: { name: 'Ada' } }),
    ...options,
  });
  return { client, wire: s.wire, elicited: () => elicited };
}

test('MRTR: a round of more than maxInputRequests (default 16) asks fails the call before any handler runs, and is not retried', async () => {
  const { client, wire, elicited } = await asking(17);
  try {
    await assert.rejects(client.callTool('many'), (e: unknown) => {
      assert.ok(e instanceof Error && 'code' in e && e.code === 'PROTOCOL', String(e));
      assert.match(e.message, /17 inputs in one input_required round; this client answers at most 16 \(maxInputRequests/);
      return true;
    });
    assert.equal(elicited(), 0, 'no handler was called');
    assert.equal(wire.sent('tools/call').length, 1);
  } finally {
    await client.close();
  }
});

test('MRTR: a round of exactly maxInputRequests asks is answered; the option lowers the bound', async () => {
  const full = await asking(16);
  try {
    assert.equal(textOf(await full.client.callTool('many')), '16 answers');
    assert.equal(full.elicited(), 16);
  } finally {
    await full.client.close();
  }
  const low = await asking(3, { maxInputRequests: 2 });
  try {
    await assert.rejects(low.client.callTool('many'), /3 inputs in one input_required round; this client answers at most 2/);
    assert.equal(low.elicited(), 0);
  } finally {
    await low.client.close();
  }
});

/** A legacy (2025-11-25) server whose tools/call sends `n` elicitation requests at once, then waits for `release`. */
async function flooding(n: number, release: Promise<void>, options: ConnectOptions) {
  let push!: (m: Msg) => void;
  const s = scripted(async (msg) => {
    if (msg.method === 'initialize') return initializeResult(msg);
    if (msg.method !== 'tools/call') return { error: { code: -32601, message: 'no' } };
    for (let i = 0; i < n; i++) push({ jsonrpc: '2.0', id: `srv-${i}`, ...ASK });
    await release;
    return { content: [{ type: 'text', text: 'done' }] };
  });
  push = s.push;
  const client = await connect(s.transport, { protocolVersion: '2025-11-25', ...options });
  /** The client's answers to the server's requests, by id. */
  const answers = () => s.wire.sent().filter((m) => m.method === undefined && String(m.id).startsWith('srv-'));
  return { client, answers };
}

test('legacy: at most maxServerRequests (default 16) server requests are served at once; the rest are refused at once with -32603 naming the option, and reach no handler', async () => {
  const gate = deferred();
  let running = 0;
  let most = 0;
  let calls = 0;
  const { client, answers } = await flooding(40, gate.promise, {
    onElicit: async () => {
      calls++;
      most = Math.max(most, ++running);
      await gate.promise;
      running--;
      return { action: 'accept', content: { name: 'Ada' } };
    },
  });
  try {
    const call = client.callTool('flood');
    // Every request is either being served or answered: 16 handlers wait on the gate, 24 refusals went out.
    await until(() => calls + answers().length === 40, 'every server request to be served or refused');
    assert.equal(most, 16);
    assert.equal(calls, 16);
    const refused = answers();
    assert.equal(refused.length, 24);
    for (const r of refused) {
      assert.equal(r.error?.code, -32603);
      assert.match(
        r.error.message,
        /already answering 16 requests from this server \(its maxServerRequests\); elicitation\/create refused/,
      );
    }
    gate.resolve();
    assert.equal(textOf(await call), 'done');
    await until(() => answers().length === 40, 'the 16 served requests to be answered');
    assert.equal(answers().filter((m) => m.result?.action === 'accept').length, 16);
  } finally {
    gate.resolve();
    await client.close();
  }
});

test('legacy: the maxServerRequests option sets the bound', async () => {
  const gate = deferred();
  let calls = 0;
  const { client, answers } = await flooding(5, gate.promise, {
    maxServerRequests: 2,
    onElicit: async () => {
      calls++;
      await gate.promise;
      return { action: 'decline' };
    },
  });
  try {
    const call = client.callTool('flood');
    await until(() => calls + answers().length === 5, 'every server request to be served or refused');
    assert.equal(calls, 2);
    assert.equal(answers().filter((m) => m.error?.code === -32603).length, 3);
    gate.resolve();
    await call;
    await until(() => answers().length === 5, 'the served requests to be answered');
  } finally {
    gate.resolve();
    await client.close();
  }
});

test('progress restarts timeoutMs, but maxTotalTimeoutMs ends a request that reports progress forever (and cancels it on the wire)', {
  timeout: 30_000,
}, async () => {
  let ticker: ReturnType<typeof setInterval> | undefined;
  let push!: (m: Msg) => void;
  const s = scripted((msg) => {
    if (msg.method === 'initialize') return initializeResult(msg);
    if (msg.method !== 'tools/call') return { error: { code: -32601, message: 'no' } };
    const token = msg.params._meta.progressToken;
    let progress = 0;
    // Never answers; reports progress far more often than timeoutMs.
    ticker = setInterval(
      () => push({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: ++progress } }),
      20,
    );
    return undefined;
  });
  push = s.push;
  const client = await connect(s.transport, { protocolVersion: '2025-11-25', maxTotalTimeoutMs: 300 });
  try {
    let reports = 0;
    await assert.rejects(
      client.callTool('endless', {}, { timeoutMs: 10_000, onProgress: () => reports++ }),
      (e: unknown) =>
        e instanceof Error && 'code' in e && e.code === 'TIMEOUT' && /within 300 ms in all.*maxTotalTimeoutMs/.test(e.message),
    );
    assert.ok(reports > 0, 'progress arrived');
    await until(() => s.wire.sent('notifications/cancelled').length === 1, 'notifications/cancelled');
    assert.equal(s.wire.sent('notifications/cancelled')[0]!.params.reason, 'timeout');
  } finally {
    clearInterval(ticker);
    await client.close();
  }
});

for (const [label, options, sent, kept] of [
  ['maxQueuedNotifications: 3', { maxQueuedNotifications: 3 }, 5, 3],
  ['the default, 1000', {}, 1002, 1000],
] as const) {
  test(`a listen stream whose reader is slow keeps the newest notifications, at most ${label}, and says once that it dropped some`, async () => {
    let push!: (m: Msg) => void;
    const s = scripted((msg) => (msg.method === 'initialize' ? initializeResult(msg) : { error: { code: -32601, message: 'no' } }));
    push = s.push;
    const warnings: string[] = [];
    let delivered = 0;
    const client = await connect(s.transport, {
      protocolVersion: '2025-11-25',
      onWarning: (w) => warnings.push(w),
      onNotification: () => delivered++,
      ...options,
    });
    try {
      const stream = client.listen({ toolsListChanged: true });
      for (let i = 0; i < sent; i++) push({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { n: i } } });
      await until(() => delivered === sent, 'every notification to arrive');
      assert.equal(warnings.length, 1);
      assert.match(warnings[0]!, new RegExp(`has ${kept} notifications nobody has read yet \\(maxQueuedNotifications\\)`));
      const first = await stream.next();
      assert.equal(first.value.params._meta.n, sent - kept, 'the oldest were dropped');
      await stream.return!();
    } finally {
      await client.close();
    }
  });
}
