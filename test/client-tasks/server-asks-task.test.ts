/**
 * Janus server as the requestor of a task on the Janus client (2025-11-25 basic/utilities/
 * tasks.mdx §Task-Augmented Sampling Request): `ctx.sample(..., { task: true })` sends the
 * request with `params.task` when the client declares `tasks.requests.sampling.createMessage`;
 * the client answers with a task at once and runs its onSample in the background; the server
 * polls `tasks/get`, takes the answer from `tasks/result`, and the tool returns it. A client that
 * does not run requests as tasks gets a plain request. Over an in-memory pair and over HTTP.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connect, type ConnectOptions } from '../../src/client/index.js';
import { serveHttp } from '../../src/transports/http/index.js';
import { createServer } from '../../src/server/index.js';
import { inMemory, textOf } from '../client/helpers.js';
import { deferred } from '../support/wait.js';
import { LEGACY, sentRequests } from './support.js';

function askingServer() {
  const server = createServer({ name: 'asker', version: '1.0.0' });
  server.tool('summarize', async (_args, ctx) => {
    const answer = await ctx.sample(
      { messages: [{ role: 'user', content: { type: 'text', text: 'Summarize, please.' } }], maxTokens: 50 },
      { task: { ttlMs: 60_000 } },
    );
    const content = answer.content as { type: string; text?: string };
    return content.type === 'text' ? `summary: ${content.text}` : 'no text';
  });
  return server;
}

function sampler(released: Promise<void>): ConnectOptions['onSample'] {
  return async () => {
    await released;
    return { role: 'assistant', content: { type: 'text', text: 'short' }, model: 'test-model' };
  };
}

test('a sampling request run as a task on the client: params.task out, polled, answered through tasks/result', async () => {
  const release = deferred();
  const { client, wire, close } = await inMemory(askingServer(), { protocolVersion: LEGACY, onSample: sampler(release.promise) });
  try {
    const call = client.callTool('summarize');
    // The client holds the task (its handler waits) while the server polls it.
    setTimeout(() => release.resolve(), 50);
    assert.equal(textOf(await call), 'summary: short');
    const answers = wire.sent().filter((m) => m.id !== undefined && m.method === undefined && m.result?.task !== undefined);
    assert.equal(answers.length, 1, 'the client answered the sampling request with a task');
    assert.equal(typeof answers[0]!.result.task.taskId, 'string');
  } finally {
    await close();
  }
});

test('a client that does not run requests as tasks gets the same sampling request plainly', async () => {
  const release = deferred();
  release.resolve();
  const { client, wire, close } = await inMemory(askingServer(), {
    protocolVersion: LEGACY,
    onSample: sampler(release.promise),
    tasks: { receive: false },
  });
  try {
    assert.equal(textOf(await client.callTool('summarize')), 'summary: short');
    assert.equal(sentRequests(wire, 'tasks/result').length, 0);
    assert.ok(wire.sent().every((m) => m.result?.task === undefined));
  } finally {
    await close();
  }
});

test('over Streamable HTTP: the task-augmented request and its polls travel on the tool call stream', async () => {
  const server = askingServer();
  const http = await serveHttp(server, { port: 0, host: '127.0.0.1' });
  const release = deferred();
  release.resolve();
  const client = await connect(http.url, { protocolVersion: LEGACY, onSample: sampler(release.promise) });
  try {
    assert.equal(textOf(await client.callTool('summarize')), 'summary: short');
  } finally {
    await client.close();
    await http.close();
    server.close();
  }
});
