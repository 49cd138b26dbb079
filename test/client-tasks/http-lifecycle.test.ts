/**
 * Every way a task ends, Janus client against Janus server over real Streamable HTTP on
 * 127.0.0.1, in both designs (both task designs on both transports; the
 * in-memory half is caller.test.ts): completed, a tool error (completed with isError), a
 * protocol error (failed), parked on input and resumed through onElicit, cancelled mid-run
 * (the server's handler sees the abort), and expired.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connect, type Client } from '../../src/client/index.js';
import { JanusError, McpError } from '../../src/errors/index.js';
import { textOf } from '../client/helpers.js';
import { serveFixture } from '../client-e2e/support.js';
import { LEGACY, MODERN, taskServer, type TaskServerProbe } from './support.js';

async function withHttp(rev: string, fn: (client: Client, probe: TaskServerProbe) => Promise<void>): Promise<void> {
  const { server, probe } = taskServer();
  const served = await serveFixture({}, {}, server);
  const client = await connect(served.url, {
    protocolVersion: rev as never,
    onElicit: () => ({ action: 'accept', content: { name: 'Ann' } }),
  });
  try {
    await fn(client, probe);
  } finally {
    await client.close();
    await served.close();
  }
}

for (const rev of [LEGACY, MODERN]) {
  test(`[${rev}] over HTTP: completed, tool error, protocol error and input, each as a task`, async () => {
    await withHttp(rev, async (client) => {
      const done = await client.startTool('work', { steps: 2 });
      assert.ok(done.taskId, 'the call became a task');
      assert.equal(textOf(await done.result()), 'worked 2 steps');

      const toolError = await (await client.startTool('tool_error')).result();
      assert.equal(toolError.isError, true);

      const failed = await client.startTool('protocol_error');
      await assert.rejects(failed.result(), (e) => e instanceof McpError && e.code === -32050 && e.message.includes('quota exhausted'));

      const asked = await client.startTool('ask');
      assert.equal(textOf(await asked.result()), 'hello Ann');
    });
  });

  test(`[${rev}] over HTTP: a task cancelled mid-run aborts its handler; one past its ttl rejects with -32602`, async () => {
    await withHttp(rev, async (client, probe) => {
      const hanging = await client.startTool('hang');
      await probe.started;
      await hanging.cancel('enough');
      await assert.rejects(hanging.result(), (e) => e instanceof JanusError && e.code === 'ABORTED');
      await probe.hangAborted;

      const brief = await client.startTool('brief');
      await assert.rejects(brief.result(), (e) => e instanceof McpError && e.code === -32602);
    });
  });
}
