/**
 * stdout carries protocol only (transports.mdx §stdio: the server MUST NOT write anything to
 * its stdout that is not a valid MCP message). A handler that prints with `console.log` and
 * friends, or writes to `process.stdout` itself, must not break the client: `serveStdio` sends
 * those writes to stderr (said once there), and stdout is the program's again when the
 * connection closes. With `protectStdout: false` the prints reach the client, and the Janus
 * client says so through `onWarning`, line by line, and goes on.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { connect } from '../../src/client/index.js';
import { fixture } from '../support/common.js';
import { exited } from '../support/example-process.js';
import { until } from '../support/wait.js';

const NOISY = fixture('noisy-stdio.js');
const PRINTS = ['debug from handler', 'info from handler', "{ dir: 'from handler' }", 'from handler', 'stray write from handler'];
const NOTICE =
  /^janus-mcp: console\.log\/stdout writes go to stderr: stdout carries the MCP protocol; serveStdio\(\{ protectStdout: false \}\) turns this off$/m;

test('the official SDK v1 client calls a tool that prints to stdout: the call works, the prints are on stderr', {
  timeout: 60_000,
}, async () => {
  const transport = new StdioClientTransport({ command: process.execPath, args: [NOISY], stderr: 'pipe' });
  let stderr = '';
  transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new SdkClient({ name: 'sdk-v1-noisy', version: '1.0.0' });
  const errors: string[] = [];
  client.onerror = (e) => errors.push(String(e));
  await client.connect(transport);
  try {
    const first = await client.callTool({ name: 'noisy', arguments: { id: '7' } });
    assert.deepEqual(first.content, [{ type: 'text', text: 'id "7"' }]);
    const second = await client.callTool({ name: 'noisy', arguments: { id: '8' } });
    assert.deepEqual(second.content, [{ type: 'text', text: 'id "8"' }]);
    await until(() => stderr.split('stray write from handler').length === 3, 'both calls’ prints on stderr', 20_000);
    // Before closing: once the connection has closed the fixture prints on stdout on purpose.
    assert.deepEqual(errors, []);
  } finally {
    await client.close();
  }
  for (const print of PRINTS) assert.ok(stderr.includes(print), `${print} on stderr:\n${stderr}`);
  assert.match(stderr, NOTICE);
  assert.equal(stderr.match(new RegExp(NOTICE.source, 'gm'))?.length, 1, 'the notice is said once');
});

test('stdout: protocol messages only while serving; the program’s own again once the connection closed', {
  timeout: 60_000,
}, async () => {
  const child = spawn(process.execPath, [NOISY], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const exit = exited(child);
  const send = (m: object) => child.stdin.write(`${JSON.stringify(m)}\n`);
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  await until(() => stdout.includes('"id":1'), 'the initialize result', 20_000);
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'noisy', arguments: { id: 'x' } } });
  await until(() => stdout.includes('"id":2'), 'the tools/call result', 20_000);
  child.stdin.end(); // the end of input closes the connection (lifecycle.mdx §Shutdown)
  assert.equal(await exit, 0, stderr);

  const lines = stdout.trimEnd().split('\n');
  assert.equal(lines.pop(), 'stdout is the program’s again', stdout);
  assert.equal(lines.length, 2, stdout);
  for (const line of lines) assert.equal((JSON.parse(line) as { jsonrpc: string }).jsonrpc, '2.0', `not protocol on stdout: ${line}`);
  for (const print of PRINTS) assert.ok(stderr.includes(print), `${print} on stderr:\n${stderr}`);
  assert.match(stderr, NOTICE);
  assert.ok(!stderr.includes('stdout is the program’s again'), 'after close stdout is not redirected');
});

test('protectStdout: false: the Janus client warns of each line that is not a message (cut to 200 characters), and the call works', {
  timeout: 60_000,
}, async () => {
  const warnings: string[] = [];
  const client = await connect(
    { command: process.execPath, args: [NOISY, '--no-protect'], stderr: 'ignore' },
    { onWarning: (m) => warnings.push(m) },
  );
  try {
    const result = await client.callTool('noisy', { id: '7' });
    assert.deepEqual(result.content, [{ type: 'text', text: 'id "7"' }]);
    await until(() => warnings.some((w) => w.includes('stray write')), 'the warnings', 20_000);
  } finally {
    await client.close();
  }
  const about = (text: string) => warnings.filter((w) => w.includes(JSON.stringify(text)));
  assert.deepEqual(about('debug from handler'), [
    `skipped a line on the server's stdout: "debug from handler" is not JSON (stdout must carry only MCP messages: a server logs on stderr)`,
  ]);
  assert.equal(about('info from handler').length, 1, warnings.join('\n'));
  assert.equal(about('stray write from handler').length, 1, warnings.join('\n'));
  // A long line is shown cut, to its first 200 characters.
  const long = warnings.filter((w) => w.includes('long:'));
  assert.equal(long.length, 1, warnings.join('\n'));
  assert.ok(long[0]!.includes(`"long:${'y'.repeat(195)}…"`), long[0]);
});
