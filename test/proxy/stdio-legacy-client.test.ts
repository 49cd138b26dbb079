/**
 * The reverse bridge through real processes: a 2026-07-28-only Janus server (a child
 * process) behind the proxy, itself a child process serving stdio, driven by a client pinned to
 * 2025-06-18. The upstream's `input_required` round becomes a real `elicitation/create` request
 * to the handshake-era client, and the proxy retries upstream with its answer.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connect } from '../../src/client/index.js';
import { fixture } from '../support/common.js';

const PROXY = fixture('proxy', 'proxy-stdio.js');
const UPSTREAM = fixture('proxy', 'upstream-stdio.js');

test("proxy over stdio: a 2025-06-18 client answers a 2026-07-28 upstream's elicitation with a real request", {
  timeout: 60_000,
}, async () => {
  const asked: Array<{ message: string; era: string }> = [];
  const client = await connect(
    { command: process.execPath, args: [PROXY, '--', process.execPath, UPSTREAM], stderr: 'ignore' },
    {
      protocolVersion: '2025-06-18',
      onElicit: (params, ctx) => {
        asked.push({ message: params.message, era: ctx.era });
        return { action: 'accept', content: { name: 'Grace' } };
      },
    },
  );
  try {
    assert.equal(client.era, 'legacy');
    assert.equal(client.protocolVersion, '2025-06-18');
    assert.equal(client.serverInfo?.name, 'proxy-upstream');
    const tools = (await client.listAllTools()).map((t) => t.name).sort();
    assert.deepEqual(tools, ['ask_name', 'crash', 'pid']);
    const result = await client.callTool('ask_name', {});
    assert.deepEqual(result.content, [{ type: 'text', text: 'hello Grace' }]);
    assert.deepEqual(asked, [{ message: 'Your name?', era: 'legacy' }]);
  } finally {
    await client.close();
  }
});
