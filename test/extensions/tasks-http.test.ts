/**
 * Tasks over real Streamable HTTP on 127.0.0.1, both designs. 2025-11-25 (basic/utilities/
 * tasks.mdx §Input Required Status): a client with no GET stream sees its task
 * input_required and calls `tasks/result`; the task's question comes on that POST's stream and
 * the result after it. 2026-07-28: a declaring client's call answers a task handle, `tasks/*`
 * carry `Mcp-Name: <taskId>`, and a mismatched one is refused with -32020.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { MODERN, type Msg } from '../support/common.js';
import { assertTaskShape } from '../support/tasks-schema.js';
import { until } from '../support/wait.js';
import { HttpPeer, nextMessage, rpc, serve, type Served } from '../http-e2e/support.js';

const TASKS = 'io.modelcontextprotocol/tasks';

let served: Served;
before(async () => {
  served = await serve();
});
after(async () => {
  await served?.close();
});

test('2025-11-25 without a GET stream: the task waits input_required, asks on the tasks/result stream, then answers the result there', async () => {
  const peer = new HttpPeer(served.url, '2025-11-25');
  await peer.initialize({ elicitation: {} });
  const created = (await peer.request('tools/call', { name: 'confirm_delete', arguments: { filename: 'e.txt' }, task: {} })).messages[0]!;
  const taskId: string = created.result.task.taskId;
  await until(async () => (await peer.request('tasks/get', { taskId })).messages[0]!.result.status === 'input_required', 'input_required');
  const stream = await peer.open(rpc(peer.id(), 'tasks/result', { taskId }));
  const ask: Msg = await nextMessage(stream);
  assert.equal(ask.method, 'elicitation/create');
  assert.deepStrictEqual(ask.params._meta['io.modelcontextprotocol/related-task'], { taskId });
  const answered = await peer.post({ jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { confirm: true } } });
  assert.equal(answered.status, 202);
  const result: Msg = await nextMessage(stream);
  assert.deepStrictEqual(result.result.content, [{ type: 'text', text: 'Deleted e.txt' }]);
  await stream.rest();
  peer.assertClean();
});

test('2026-07-28: a task handle, tasks/get by Mcp-Name until completed, and a mismatched Mcp-Name refused with -32020', async () => {
  const peer = new HttpPeer(served.url, MODERN);
  const caps = { extensions: { [TASKS]: {} } };
  const created = (await peer.modern('tools/call', { name: 'slow_compute', arguments: { seconds: 0.05 } }, { caps })).messages[0]!;
  assertTaskShape('CreateTaskResult', created.result);
  const taskId: string = created.result.taskId;
  const done = await until(async () => {
    const r = (await peer.modern('tasks/get', { taskId }, { caps })).messages[0]!.result;
    return r.status === 'completed' ? r : undefined;
  }, 'completion');
  assert.deepStrictEqual(done.result.content, [{ type: 'text', text: 'Computed result in 0.05s' }]);
  const wrong = await peer.modern('tasks/get', { taskId }, { caps, headers: { 'mcp-name': 'another-task' } });
  assert.equal(wrong.status, 400);
  assert.equal(wrong.messages[0]!.error.code, -32020);
  peer.assertClean();
});
