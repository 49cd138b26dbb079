/**
 * `server.listChanged(kind)`: a list that changed with no definition changing (it depends on
 * something outside the server, as a proxy's upstream list does) is announced to clients of both
 * eras: a handshake-era session's `notifications/<kind>/list_changed`, an event on every
 * 2026-07-28 `subscriptions/listen` stream that asked for that list, and to no other.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServer } from '../../src/server/index.js';
import { connectInMemory } from '../../src/testing/index.js';
import { until } from '../support/wait.js';
import { wireValidator } from '../support/wire-schema.js';

function server() {
  const s = createServer({ name: 'outside', version: '1.0.0' });
  s.tool('t', () => 't');
  s.prompt('p', () => 'p');
  s.resource('test://r', { name: 'r' }, 'r');
  return s;
}

test('server.listChanged tells a handshake-era session, with a notification of its revision', async () => {
  const s = server();
  const { recorder, close } = await connectInMemory(s, { protocolVersion: '2025-11-25' });
  try {
    recorder.clear();
    s.listChanged('prompts');
    await until(() => recorder.fromServer('notifications/prompts/list_changed').length === 1, 'prompts/list_changed');
    assert.equal(recorder.fromServer('notifications/tools/list_changed').length, 0);
    wireValidator().assertServerMessage('2025-11-25', recorder.fromServer('notifications/prompts/list_changed')[0]!);
  } finally {
    await close();
    s.close();
  }
});

test('server.listChanged is an event on the 2026-07-28 listen streams that asked for that list', async () => {
  const s = server();
  const { client, recorder, close } = await connectInMemory(s, { protocolVersion: '2026-07-28' });
  const stop = new AbortController();
  const tools: string[] = [];
  const resources: string[] = [];
  const drain = async (filter: object, into: string[]) => {
    for await (const n of client.listen(filter, { signal: stop.signal })) into.push(n.method);
  };
  const listening = [drain({ toolsListChanged: true }, tools), drain({ resourcesListChanged: true }, resources)];
  try {
    await until(() => recorder.fromServer('notifications/subscriptions/acknowledged').length === 2, 'both streams open');
    s.listChanged('tools');
    await until(() => tools.length === 1, 'the tools stream told');
    assert.deepEqual(tools, ['notifications/tools/list_changed']);
    assert.deepEqual(resources, [], 'a stream that did not ask for tools is not told');
    for (const m of recorder.fromServer('notifications/tools/list_changed')) wireValidator().assertServerMessage('2026-07-28', m);
  } finally {
    stop.abort();
    await Promise.all(listening);
    await close();
    s.close();
  }
});

test('server.listChanged names one of the lists clients hear of', () => {
  const s = server();
  try {
    assert.throws(() => s.listChanged('templates' as never), {
      name: 'TypeError',
      message: `server.listChanged(kind): kind is 'tools', 'prompts' or 'resources', not "templates"`,
    });
  } finally {
    s.close();
  }
});
