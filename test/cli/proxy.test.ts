/**
 * `janus-mcp proxy`: the command's wiring of `createProxy` (janus-mcp/proxy; its bridging is
 * tested in test/proxy): an upstream given as a URL or as a command after `--`, served over
 * Streamable HTTP (the URL on stderr) or stdio, to clients of both eras; SIGTERM ends it with 0.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connect } from '../../src/client/index.js';
import { EXAMPLE_MAIN } from '../fuzz/stdio-channel.js';
import { startExample, stopExample, type ExampleProcess } from '../support/example-process.js';
import { TEXT } from '../support/everything-fixture.js';
import { CLI_MAIN, startCli } from './support.js';

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
