/**
 * `janus-mcp serve FILE`: a module's Janus server over stdio (nothing but protocol on stdout,
 * transports.mdx §stdio: the module's console output goes to stderr) and over Streamable HTTP
 * (the URL on stderr); SIGTERM ends it with exit code 0; a module without a server is a clear
 * error (exit 1).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { connect } from '../../src/client/index.js';
import { exited } from '../support/example-process.js';
import { until } from '../support/wait.js';
import { CLI_MAIN, runCli, scratch, startCli, writeServerModule } from './support.js';

describe('serve over stdio', () => {
  test('stdout carries JSON-RPC only: the module logs to stdout on import, which goes to stderr', async () => {
    const file = join(scratch(), 'server.mjs');
    writeServerModule(file, { hello: 'hello from the module' });
    const child = spawn(process.execPath, [CLI_MAIN, 'serve', file], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const exit = exited(child);
    const send = (m: object) => child.stdin!.write(`${JSON.stringify(m)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    await until(() => stdout.includes('"id":1'), 'the initialize result', 20_000);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'hello', arguments: {} } });
    await until(() => stdout.includes('"id":2'), 'the tools/call result', 20_000);
    child.stdin!.end(); // the end of input ends a stdio session (lifecycle.mdx §Shutdown)
    assert.equal(await exit, 0, stderr);

    const lines = stdout.trimEnd().split('\n');
    for (const line of lines) assert.equal((JSON.parse(line) as { jsonrpc: string }).jsonrpc, '2.0', `not protocol on stdout: ${line}`);
    const call = lines.map((l) => JSON.parse(l) as { id?: number; result?: { content: Array<{ text: string }> } }).find((m) => m.id === 2);
    assert.equal(call?.result?.content[0]?.text, 'hello from the module');
    assert.match(stderr, /a log line from the module/);
  });

  test('a Janus client connects to it as a command, in the modern era', async () => {
    const file = join(scratch(), 'server.mjs');
    writeServerModule(file, { hello: 'hi' }, 'server');
    const client = await connect({ command: process.execPath, args: [CLI_MAIN, 'serve', file], stderr: 'ignore' });
    try {
      assert.equal(client.era, 'modern');
      assert.equal(client.serverInfo?.name, 'cli-fixture');
      const result = await client.callTool('hello');
      assert.deepEqual(result.content, [{ type: 'text', text: 'hi' }]);
    } finally {
      await client.close();
    }
  });
});

describe('serve over HTTP', () => {
  test('--http 127.0.0.1:0: the URL on stderr, both eras served, SIGTERM ends it with 0', async () => {
    const file = join(scratch(), 'server.mjs');
    writeServerModule(file, { hello: 'over http' }, 'factory');
    const running = startCli(['serve', file, '--http', '127.0.0.1:0']);
    try {
      const url = await running.url();
      assert.equal(url.hostname, '127.0.0.1');
      for (const protocolVersion of ['2026-07-28', '2025-03-26'] as const) {
        const client = await connect(url, { protocolVersion });
        try {
          assert.deepEqual((await client.callTool('hello')).content, [{ type: 'text', text: 'over http' }]);
        } finally {
          await client.close();
        }
      }
    } finally {
      assert.equal(await running.stop(), 0, running.stderr());
    }
  });
});

describe('a module that does not give a server', () => {
  test('no default or `server` export: exit 1, saying what to export', async () => {
    const file = join(scratch(), 'empty.mjs');
    writeFileSync(file, 'export const something = 1;\n');
    const r = await runCli(['serve', file]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^janus-mcp: .*empty\.mjs exports no server: export it as default or as `server`$/m);
  });

  test('a default export that is not a Server: exit 1', async () => {
    const file = join(scratch(), 'other.mjs');
    writeFileSync(file, 'export default { hello: 1 };\n');
    const r = await runCli(['serve', file, '--http', '127.0.0.1:0']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /is not a Janus Server/);
  });

  test('a file that does not exist: exit 1', async () => {
    const r = await runCli(['serve', join(scratch(), 'missing.mjs')]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^janus-mcp: .*missing\.mjs/m);
  });

  test('--http without a port: a usage error', async () => {
    const r = await runCli(['serve', 'x.mjs', '--http', 'localhost']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--http needs HOST:PORT/);
  });
});
