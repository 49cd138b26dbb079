/**
 * `janus-mcp proxy`: the command's wiring of `createProxy` (janus-mcp/proxy; its bridging is
 * tested in test/proxy): an upstream given as a URL or as a command after `--`, served over
 * Streamable HTTP (the URL on stderr) or stdio, to clients of both eras; SIGTERM ends it with 0;
 * `--continuation-timeout` bounds how long a round waits for its retry.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connect } from '../../src/client/index.js';
import { EXAMPLE_MAIN } from '../fuzz/stdio-channel.js';
import { startExample, stopExample, type ExampleProcess } from '../support/example-process.js';
import { TEXT } from '../support/everything-fixture.js';
import { HttpPeer } from '../http-e2e/support.js';
import { answers, callRaw, MODERN, startElicitingUpstream } from '../proxy/eliciting-upstream.js';
import { until } from '../support/wait.js';
import { CLI_MAIN, runCli, startCli } from './support.js';

let example: ExampleProcess;
before(async () => {
  example = await startExample();
});
after(() => stopExample(example));

const simpleText = [{ type: 'text', text: TEXT }];

for (const [what, upstream] of [
  ['--upstream URL', () => ['--upstream', example.url.href]],
  ['-- COMMAND ARGS', () => ['--', process.execPath, EXAMPLE_MAIN, '--stdio']],
] as const) {
  test(`proxy --port 0 ${what}: served over HTTP to clients of both eras`, async () => {
    const running = startCli(['proxy', '--port', '0', '--host', '127.0.0.1', ...upstream()]);
    try {
      const url = await running.url();
      for (const protocolVersion of ['2026-07-28', '2025-06-18'] as const) {
        const client = await connect(url, { protocolVersion });
        try {
          assert.ok((await client.listAllTools()).some((t) => t.name === 'test_simple_text'));
          assert.deepEqual((await client.callTool('test_simple_text')).content, simpleText);
        } finally {
          await client.close();
        }
      }
    } finally {
      assert.equal(await running.stop(), 0, running.stderr());
    }
  });
}

test('proxy --stdio -- COMMAND: a client starts the proxy as its command', async () => {
  const client = await connect(
    { command: process.execPath, args: [CLI_MAIN, 'proxy', '--stdio', '--', process.execPath, EXAMPLE_MAIN, '--stdio'], stderr: 'ignore' },
    { protocolVersion: '2025-11-25' },
  );
  try {
    assert.deepEqual((await client.callTool('test_simple_text')).content, simpleText);
  } finally {
    await client.close();
  }
});

test('proxy --continuation-timeout SECONDS: a round not retried in time is dropped, and the late retry refused with -32602', async () => {
  const upstream = await startElicitingUpstream();
  const running = startCli(['proxy', '--port', '0', '--continuation-timeout', '0.3', '--upstream', upstream.url.href]);
  try {
    const peer = new HttpPeer(await running.url(), MODERN);
    const round = await callRaw(peer, 'ask_name');
    assert.equal(round.result?.resultType, 'input_required', JSON.stringify(round));
    await until(() => upstream.cancelled + upstream.failed > 0, 'the upstream call to end', 20_000);
    const late = await callRaw(peer, 'ask_name', {
      requestState: round.result.requestState,
      inputResponses: answers(round.result.inputRequests, 'Ada'),
    });
    assert.equal(late.error?.code, -32602, JSON.stringify(late));
    assert.match(late.error.message, /expired: no retry answered the round within 0\.3 s.*Call the tool again without requestState/);
    assert.equal(upstream.started, 1);
  } finally {
    assert.equal(await running.stop(), 0, running.stderr());
    await upstream.close();
  }
});

for (const [what, args, message] of [
  [
    'a --continuation-timeout that is not a number of seconds',
    ['--continuation-timeout', 'soon'],
    /--continuation-timeout needs a number of seconds above 0/,
  ],
  ['a --continuation-timeout of 0', ['--continuation-timeout', '0'], /--continuation-timeout needs a number of seconds above 0/],
] as const) {
  test(`proxy: ${what} is a usage error`, async () => {
    const r = await runCli(['proxy', ...args, '--upstream', 'http://127.0.0.1:1/mcp']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, message);
  });
}
