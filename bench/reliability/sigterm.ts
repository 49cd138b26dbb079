/**
 * SIGTERM under load (docs/reliability.md): the example server gets SIGTERM while calls are in
 * flight in both eras, a 2026-07-28 subscriptions/listen stream is open and a 2025-11-25 session
 * holds its GET stream. What must hold for a graceful drain:
 * - every call in flight when the signal came ends with its JSON-RPC answer (a result, or an
 *   error saying why), never a cut connection or a stream that stops without its response;
 * - the listen stream gets its final result and ends (subscriptions.mdx); the GET stream ends
 *   cleanly (a complete chunked body);
 * - the process exits with code 0, within its grace period.
 * Over stdio (the same server, `--stdio`): the in-flight calls are answered before the process
 * exits.
 *
 *   node dist/bench/reliability/sigterm.js [--workers 32] [--load-ms 1500]
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import { arg, EXAMPLE_MAIN, LEGACY, META, MODERN, startHttp } from './example-server.js';

const WORKERS = Number(arg('workers', '32'));
const LOAD_MS = Number(arg('load-ms', '1500'));
/** The slowest of the example's tools: about 100 ms, with a progress notification at each step. */
const SLOW = { name: 'test_tool_with_progress', arguments: {} };

type Outcome = 'result' | 'error answer' | 'stream ended without answer' | 'connection cut' | 'refused';
const tally = () => new Map<Outcome, number>();
const add = (m: Map<Outcome, number>, o: Outcome) => m.set(o, (m.get(o) ?? 0) + 1);

interface Exchange {
  status: number;
  sessionId?: string;
  body: string;
  /** The response arrived whole (a complete body or a chunked stream's terminator). */
  complete: boolean;
  error?: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

function request(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body?: string,
  onData?: (text: string) => void,
): Promise<Exchange> {
  return new Promise((resolve) => {
    const req = http.request(url, { method, agent, headers });
    req.on('error', (e) => resolve({ status: 0, body: '', complete: false, error: (e as NodeJS.ErrnoException).code ?? e.message }));
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        onData?.(text);
      });
      const sid = res.headers['mcp-session-id'];
      res.on('close', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: text,
          complete: res.complete,
          ...(typeof sid === 'string' ? { sessionId: sid } : {}),
        }),
      );
    });
    req.end(body);
  });
}

function outcomeOf(x: Exchange, id: number): Outcome {
  if (x.status === 0) return x.error === 'ECONNREFUSED' ? 'refused' : 'connection cut';
  if (!x.complete) return 'connection cut';
  const answer = x.body.includes(`"id":${id},"result"`) ? 'result' : x.body.includes(`"id":${id},"error"`) ? 'error answer' : undefined;
  return answer ?? 'stream ended without answer';
}

const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function http_(): Promise<boolean> {
  const server = await startHttp(0);
  const url = server.url;
  let nextId = 1;
  // A 2025-11-25 session and its standalone GET stream.
  const init = await request(
    url,
    'POST',
    json,
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'sigterm', version: '1' } },
    }),
  );
  const sid = init.sessionId;
  if (sid === undefined) throw new Error(`initialize failed: ${init.body}`);
  const session = { ...json, 'mcp-session-id': sid, 'mcp-protocol-version': LEGACY };
  await request(url, 'POST', session, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  const getStream = request(url, 'GET', { accept: 'text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': LEGACY });
  // A 2026-07-28 listen stream, acknowledged before the load starts.
  let acknowledged!: () => void;
  const ack = new Promise<void>((r) => (acknowledged = r));
  const listenId = nextId++;
  const listen = request(
    url,
    'POST',
    { ...json, 'mcp-protocol-version': MODERN, 'mcp-method': 'subscriptions/listen' },
    JSON.stringify({
      jsonrpc: '2.0',
      id: listenId,
      method: 'subscriptions/listen',
      params: { notifications: { toolsListChanged: true }, _meta: META },
    }),
    (text) => text.includes('subscriptions/acknowledged') && acknowledged(),
  );
  await ack;

  // Load: half the workers call in 2026-07-28, half in the session, each as fast as answers come.
  let signalled = false;
  const inFlightAtSignal = tally();
  const afterSignal = tally();
  const beforeSignal = tally();
  const workers = Array.from({ length: WORKERS }, async (_, w) => {
    const modern = w % 2 === 0;
    for (;;) {
      const id = nextId++;
      const startedBefore = !signalled;
      const params = modern ? { ...SLOW, _meta: { ...META, progressToken: id } } : { ...SLOW, _meta: { progressToken: id } };
      const headers = modern ? { ...json, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': SLOW.name } : session;
      const x = await request(url, 'POST', headers, JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }));
      const o = outcomeOf(x, id);
      add(!startedBefore ? afterSignal : signalled ? inFlightAtSignal : beforeSignal, o);
      if (o === 'refused' || (signalled && o !== 'result')) return;
    }
  });
  await new Promise((r) => setTimeout(r, LOAD_MS));
  signalled = true;
  const t0 = performance.now();
  server.child.kill('SIGTERM');
  const exit = await server.exited;
  const exitMs = performance.now() - t0;
  await Promise.all(workers);
  const [listenX, getX] = await Promise.all([listen, getStream]);
  agent.destroy();

  const listenFinal = listenX.complete && listenX.body.includes(`"id":${listenId},"result"`);
  const lost = [...inFlightAtSignal].filter(([o]) => o !== 'result' && o !== 'error answer').reduce((n, [, c]) => n + c, 0);
  console.log('HTTP (test/fixtures/everything/main.js):');
  console.log(`  calls completed before SIGTERM: ${show(beforeSignal)}`);
  console.log(`  calls in flight at SIGTERM:     ${show(inFlightAtSignal)}`);
  console.log(`  calls started after SIGTERM:    ${show(afterSignal)}`);
  console.log(
    `  2026-07-28 listen stream: ${listenFinal ? 'final result, stream ended' : listenX.complete ? 'ended without its final result' : 'cut'}`,
  );
  console.log(`  2025-11-25 GET stream: ${getX.complete ? 'ended cleanly' : 'cut'}`);
  console.log(`  exit: code ${exit.code} signal ${exit.signal} after ${Math.round(exitMs)} ms`);
  const ok = lost === 0 && listenFinal && getX.complete && exit.code === 0;
  console.log(`  ${ok ? 'graceful' : 'NOT graceful'}`);
  return ok;
}

function show(t: Map<Outcome, number>): string {
  return t.size === 0 ? 'none' : [...t].map(([o, n]) => `${n} ${o}`).join(', ');
}

async function stdio(): Promise<boolean> {
  const child = spawn(process.execPath, [EXAMPLE_MAIN, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once('exit', (code, signal) => r({ code, signal })),
  );
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (c: string) => (out += c));
  const write = (m: object) => child.stdin.write(`${JSON.stringify(m)}\n`);
  write({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'sigterm', version: '1' } },
  });
  // Signals sent before the server is up are not what this measures: wait for its first answer.
  while (!out.includes('"id":0,')) await new Promise((r) => setTimeout(r, 10));
  write({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const ids: number[] = [];
  for (let i = 1; i <= 20; i++) {
    ids.push(i);
    write({ jsonrpc: '2.0', id: i, method: 'tools/call', params: i % 2 ? { ...SLOW, _meta: META } : SLOW });
  }
  // Let the calls start, then signal while they sleep.
  await new Promise((r) => setTimeout(r, 30));
  const t0 = performance.now();
  child.kill('SIGTERM');
  const exit = await exited;
  const answered = ids.filter((id) => out.includes(`"id":${id},"result"`) || out.includes(`"id":${id},"error"`)).length;
  console.log('stdio (test/fixtures/everything/main.js --stdio):');
  console.log(`  calls in flight at SIGTERM: ${ids.length}, answered before exit: ${answered}`);
  console.log(`  exit: code ${exit.code} signal ${exit.signal} after ${Math.round(performance.now() - t0)} ms`);
  const ok = answered === ids.length && exit.code === 0;
  console.log(`  ${ok ? 'graceful' : 'NOT graceful'}`);
  return ok;
}

const results = [await http_(), await stdio()];
console.log(`\nSIGTERM: ${results.every(Boolean) ? 'OK' : 'FAILED'}`);
process.exitCode = results.every(Boolean) ? 0 : 1;
