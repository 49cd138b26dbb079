/**
 * Tasks over real Streamable HTTP on 127.0.0.1, against this project's server. 2026-07-28:
 * tasks/get, tasks/update and tasks/cancel carry `Mcp-Method` and `Mcp-Name: <taskId>`
 * (ext-tasks §Streamable HTTP: Routing Headers). 2025-11-25: the task's elicitation arrives
 * as a real server request on an SSE stream while tasks/result waits (basic/utilities/
 * tasks.mdx §Input Required Status), and is answered by onElicit.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connect } from '../../src/client/index.js';
import { JanusError } from '../../src/errors/index.js';
import { textOf } from '../client/helpers.js';
import { recordingFetch, serveFixture } from '../client-e2e/support.js';
import { LEGACY, MODERN, taskServer } from './support.js';

const onElicit = () => ({ action: 'accept' as const, content: { name: 'Ann' } });

test('[2026-07-28] HTTP: tasks/get, tasks/update and tasks/cancel carry Mcp-Method and Mcp-Name = taskId', async () => {
  const { server, probe } = taskServer();
  const served = await serveFixture({}, {}, server);
  const rec = recordingFetch();
  const client = await connect(served.url, { protocolVersion: MODERN, fetch: rec.fetch, onElicit });
  try {
    const asking = await client.startTool('ask', {});
    assert.equal(textOf(await asking.result()), 'hello Ann');
    const hanging = await client.startTool('hang', {});
    await probe.started;
    await hanging.cancel();
    await assert.rejects(hanging.result(), (e) => e instanceof JanusError && e.code === 'ABORTED');
    await probe.hangAborted;
    const expected: Array<[string, string]> = [
      ['tasks/get', asking.taskId!],
      ['tasks/update', asking.taskId!],
      ['tasks/cancel', hanging.taskId!],
    ];
    for (const [method, taskId] of expected) {
      const posts = rec.posts(method);
      assert.ok(posts.length >= 1, `${method} was sent`);
      for (const p of posts) {
        assert.equal(p.headers['mcp-method'], method);
        assert.equal(p.headers['mcp-name'], taskId, `${method} Mcp-Name`);
        assert.equal(p.status, 200, `${method} accepted by the server's header check`);
      }
    }
  } finally {
    await client.close();
    await served.close();
  }
});

test('[2025-11-25] HTTP: a task asks through a real elicitation/create on an SSE stream; callTool resolves with the result', async () => {
  const { server } = taskServer('required');
  const served = await serveFixture({}, {}, server);
  let asked = 0;
  const client = await connect(served.url, { protocolVersion: LEGACY, onElicit: () => (asked++, onElicit()) });
  try {
    assert.equal(textOf(await client.callTool('ask', {})), 'hello Ann');
    assert.equal(asked, 1);
    assert.equal(textOf(await client.callTool('work', { steps: 2 })), 'worked 2 steps');
  } finally {
    await client.close();
    await served.close();
  }
});
