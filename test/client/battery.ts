/**
 * The checks every round-trip test runs against the fixture server
 * (test/fixtures/client-server/server.ts), whatever the transport: features, progress,
 * timeouts reset by progress, cancellation, and the ask handlers. Not a test file.
 */
import assert from 'node:assert/strict';
import type { Client } from '../../src/client/index.js';
import type { ProtocolVersion } from '../../src/protocol/versions.js';
import { FIXTURE_INFO, FIXTURE_INSTRUCTIONS } from '../fixtures/client-server/server.js';
import { MODERN } from '../support/common.js';
import { until } from '../support/wait.js';
import { type askHandlers, hasElicitation, textOf, type Wire } from './helpers.js';

/** era, version, tools, prompt, resource, template (every revision defines all of them). */
export async function features(client: Client, rev: ProtocolVersion): Promise<void> {
  assert.equal(client.era, rev === MODERN ? 'modern' : 'legacy');
  assert.equal(client.protocolVersion, rev);
  if (rev !== MODERN) {
    // Legacy: from the InitializeResult (lifecycle.mdx §Initialization).
    assert.deepEqual(client.serverInfo, FIXTURE_INFO);
    assert.equal(client.instructions, FIXTURE_INSTRUCTIONS);
  }

  const tools = (await client.listAllTools()).map((t) => t.name);
  for (const name of ['echo', 'add', 'ask', 'ask_defaults', 'slow', 'block']) assert.ok(tools.includes(name), `${name} in ${tools}`);
  assert.equal(textOf(await client.callTool('echo', { text: 'hi' })), 'echo: hi');

  const sum = await client.callTool('add', { a: 2, b: 3 });
  assert.equal(textOf(sum), '{"sum":5}');
  // structuredContent arrived in 2025-06-18 (changelog); older revisions must not see it.
  assert.deepEqual(sum.structuredContent, rev >= '2025-06-18' ? { sum: 5 } : undefined);

  const prompt = await client.getPrompt('greet', { name: 'Ada' });
  assert.deepEqual(prompt.messages, [{ role: 'user', content: { type: 'text', text: 'Hello, Ada!' } }]);

  const res = await client.readResource('fixture://static');
  assert.deepEqual(res.contents, [{ uri: 'fixture://static', mimeType: 'text/plain', text: 'static text' }]);

  const { resourceTemplates } = await client.listResourceTemplates();
  assert.deepEqual(
    resourceTemplates.map((t) => t.uriTemplate),
    ['fixture://items/{id}'],
  );
  const item = await client.readResource('fixture://items/7');
  assert.equal((item.contents[0] as { text?: string }).text, 'item 7');
}

/** completion/complete exists in every revision (2024-11-05 `ClientRequest` includes `CompleteRequest`). */
export async function completion(client: Client): Promise<void> {
  const names = await client.complete({ type: 'ref/prompt', name: 'greet' }, { name: 'name', value: 'A' });
  assert.deepEqual(names.values, ['Ada', 'Alan']);
  const ids = await client.complete({ type: 'ref/resource', uri: 'fixture://items/{id}' }, { name: 'id', value: '1' });
  assert.deepEqual(ids.values, ['1', '10']);
}

/**
 * onProgress sees every step; progress resets the timeout; without progress the same call
 * times out. The control runs alongside, so it also shows that one call's progress does not
 * reset another call's timeout.
 */
export async function progress(client: Client, rev: ProtocolVersion, { control = true } = {}): Promise<void> {
  const seen: Array<{ progress: number; total?: number; message?: string }> = [];
  const [done] = await Promise.all([
    // Each step comes well within the timeout even on a loaded machine; all four together do not.
    client.callTool('slow', { steps: 4, delayMs: 150 }, { timeoutMs: 450, onProgress: (p) => seen.push(p) }),
    // The control: the same call without progress times out, so the success is the reset's doing.
    control &&
      assert.rejects(client.callTool('slow', { steps: 4, delayMs: 150 }, { timeoutMs: 450 }), { name: 'JanusError', code: 'TIMEOUT' }),
  ]);
  assert.equal(textOf(done), 'done after 4');
  assert.deepEqual(
    seen.map((p) => p.progress),
    [1, 2, 3, 4],
  );
  assert.deepEqual(
    seen.map((p) => p.total),
    [4, 4, 4, 4],
  );
  // Progress `message` joined in 2025-03-26.
  assert.equal(seen[0]!.message, rev >= '2025-03-26' ? 'step 1' : undefined);
}

async function abortCount(client: Client): Promise<number> {
  return Number(textOf(await client.callTool('aborts')));
}

/** An aborted call rejects at once, and the server handler's ctx.signal aborts (notifications/cancelled). */
export async function cancellation(client: Client): Promise<void> {
  const before = await abortCount(client);
  const ac = new AbortController();
  // `block` reports progress 0 once it runs: abort only then, so the server has the request in flight.
  const call = client.callTool('block', {}, { signal: ac.signal, onProgress: () => ac.abort() });
  await assert.rejects(call, { name: 'JanusError', code: 'ABORTED' });
  await until(async () => (await abortCount(client)) === before + 1, 'the server handler to see ctx.signal abort');
}

/**
 * The same handlers answer legacy server-to-client requests and modern input_required
 * rounds. Asks made with Promise.all form one round (all three handlers start before any
 * ends); sequential asks take one round each. With a wire, the number of tools/call
 * requests pins the rounds on the modern wire (1 + rounds) and legacy (always 1).
 */
export async function asks(client: Client, rev: ProtocolVersion, h: ReturnType<typeof askHandlers>, wire?: Wire): Promise<void> {
  const elicit = hasElicitation(rev);
  const kinds = elicit ? ['elicit', 'sample', 'roots'] : ['sample', 'roots'];
  const expected = [...(elicit ? ['Ada'] : []), 'hi there', ['file:///work']];
  const calls = () => wire?.sent('tools/call').filter((m) => m.params.name === 'ask').length ?? 0;

  h.events.length = 0;
  h.together(kinds.length);
  let before = calls();
  const together = await client.callTool('ask', { elicit, sample: true, roots: true });
  assert.deepEqual(JSON.parse(textOf(together)), expected);
  assert.deepEqual({ ...h.calls }, { elicit: elicit ? 1 : 0, sample: 1, roots: 1 });
  const starts = h.events.filter((e) => e.startsWith('start:'));
  assert.equal(starts.length, kinds.length);
  assert.ok(
    h.events.slice(0, kinds.length).every((e) => e.startsWith('start:')),
    `one round: ${h.events}`,
  );
  if (wire) assert.equal(calls() - before, rev === MODERN ? 2 : 1, 'Promise.all of the asks is one input round');

  h.events.length = 0;
  h.together(1);
  before = calls();
  const oneByOne = await client.callTool('ask', { elicit, sample: true, roots: true, sequential: true });
  assert.deepEqual(JSON.parse(textOf(oneByOne)), expected);
  assert.deepEqual({ ...h.calls }, { elicit: elicit ? 2 : 0, sample: 2, roots: 2 });
  assert.deepEqual(
    h.events,
    kinds.flatMap((k) => [`start:${k}`, `end:${k}`]),
    'sequential asks: one round each',
  );
  if (wire) assert.equal(calls() - before, rev === MODERN ? 1 + kinds.length : 1);
}

/** Accepting with `{}` sends the schema defaults (2025-11-25 client/elicitation.mdx, SEP-1034). */
export async function elicitationDefaults(client: Client, h: ReturnType<typeof askHandlers>): Promise<void> {
  h.answer.content = {};
  const empty = JSON.parse(textOf(await client.callTool('ask_defaults')));
  assert.deepEqual(empty, { action: 'accept', content: { color: 'blue', count: 3, agree: true } });
  h.answer.content = { name: 'Ada', count: 7 };
  const partial = JSON.parse(textOf(await client.callTool('ask_defaults')));
  assert.deepEqual(partial, { action: 'accept', content: { name: 'Ada', count: 7, color: 'blue', agree: true } });
  h.answer.content = { name: 'Ada' };
}
