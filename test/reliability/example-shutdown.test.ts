/**
 * The example server (test/fixtures/everything/main.js) drains on SIGTERM (docs/reliability.md
 * §SIGTERM under load; test/fixtures/everything/shutdown.ts): a call in flight gets its result, a
 * 2026-07-28 listen stream its final result (subscriptions.mdx), and the process exits 0; over
 * stdio the signal counts as the end of input (lifecycle.mdx §Shutdown). No timing is assumed:
 * the signal goes once the first progress notification shows the call is running, and the call
 * still has steps to go (test_tool_with_progress reports 0, 50 and 100).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import { test } from 'node:test';
import { MODERN, type Msg } from '../support/common.js';
import { SseParser } from '../support/http.js';
import { modernMeta } from '../support/peer.js';
import { EXAMPLE_MAIN } from '../fuzz/stdio-channel.js';

const CALL = { name: 'test_tool_with_progress', arguments: {} };

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** POSTs a 2026-07-28 request and yields its SSE messages as they come; resolves `ended` with whether the stream ended whole. */
function modernStream(
  url: URL,
  id: number,
  method: string,
  params: Record<string, unknown>,
  onMessage: (m: Msg) => void,
): Promise<boolean> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
    };
    if (typeof params.name === 'string') headers['mcp-name'] = params.name;
    const req = http.request(url, { method: 'POST', headers, agent: false });
    req.on('error', () => resolve(false));
    req.on('response', (res) => {
      const parser = new SseParser();
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        for (const e of parser.push(chunk)) if (e.data !== '') onMessage(JSON.parse(e.data) as Msg);
      });
      res.on('close', () => resolve(res.complete));
    });
    req.end(JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: modernMeta({}, { progressToken: `p${id}` }) } }));
  });
}

test('SIGTERM drains the example over HTTP: the call in flight gets its result, the listen stream its final result, exit code 0', async () => {
  const child = spawn(process.execPath, [EXAMPLE_MAIN], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exit = exited(child);
  try {
    const url = await new Promise<URL>((resolve, reject) => {
      let text = '';
      child.stderr!.setEncoding('utf8');
      child.stderr!.on('data', (chunk: string) => {
        text += chunk;
        const m = /listening on (http:\/\/\S+)/.exec(text);
        if (m) resolve(new URL(m[1]!));
      });
      void exit.then(() => reject(new Error(`the example exited before listening: ${text}`)));
    });
    const listenMessages: Msg[] = [];
    let acknowledged!: () => void;
    const ack = new Promise<void>((r) => (acknowledged = r));
    const listen = modernStream(url, 1, 'subscriptions/listen', { notifications: { toolsListChanged: true } }, (m) => {
      listenMessages.push(m);
      if (m.method === 'notifications/subscriptions/acknowledged') acknowledged();
    });
    await ack;
    const callMessages: Msg[] = [];
    let running!: () => void;
    const started = new Promise<void>((r) => (running = r));
    const call = modernStream(url, 2, 'tools/call', CALL, (m) => {
      callMessages.push(m);
      if (m.method === 'notifications/progress') running();
    });
    await started;
    child.kill('SIGTERM');
    const [callEnded, listenEnded, { code, signal }] = await Promise.all([call, listen, exit]);
    assert.deepEqual(
      callMessages.at(-1)?.result?.content,
      [{ type: 'text', text: 'Progress test completed' }],
      'the call in flight is answered',
    );
    assert.ok(callEnded, 'its stream ends whole');
    assert.equal(listenMessages.at(-1)?.id, 1, 'the listen stream gets its final result');
    assert.equal(listenMessages.at(-1)?.result?.resultType, 'complete');
    assert.ok(listenEnded, 'and ends whole');
    assert.deepEqual({ code, signal }, { code: 0, signal: null });
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});

test('SIGTERM over stdio counts as the end of input: the calls in flight are answered, exit code 0', async () => {
  const child = spawn(process.execPath, [EXAMPLE_MAIN, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
  const exit = exited(child);
  try {
    const messages: Msg[] = [];
    const waiters: Array<[(m: Msg) => boolean, () => void]> = [];
    let buffer = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffer += chunk;
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const m = JSON.parse(buffer.slice(0, nl)) as Msg;
        buffer = buffer.slice(nl + 1);
        messages.push(m);
        for (const [test, resolve] of waiters) if (test(m)) resolve();
      }
    });
    const next = (test: (m: Msg) => boolean) =>
      new Promise<void>((resolve) => (messages.some(test) ? resolve() : waiters.push([test, resolve])));
    const write = (m: object) => child.stdin.write(`${JSON.stringify(m)}\n`);
    write({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    await next((m) => m.id === 0);
    write({ jsonrpc: '2.0', method: 'notifications/initialized' });
    write({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { ...CALL, _meta: { progressToken: 'legacy' } } });
    write({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { ...CALL, _meta: modernMeta({}, { progressToken: 'modern' }) } });
    await Promise.all([next((m) => m.params?.progressToken === 'legacy'), next((m) => m.params?.progressToken === 'modern')]);
    child.kill('SIGTERM');
    const { code, signal } = await exit;
    for (const id of [1, 2]) {
      const answer = messages.find((m) => m.id === id);
      assert.deepEqual(answer?.result?.content, [{ type: 'text', text: 'Progress test completed' }], `call ${id} is answered`);
    }
    assert.deepEqual({ code, signal }, { code: 0, signal: null });
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});
