/**
 * `node dist/bench/in-process.js`: what one `tools/call` costs the server's dispatch, without
 * sockets or pipes (whose noise hides a microsecond): 40,000 calls through `coreOf(server)`
 * per round, 5 rounds (the first two are warm-up), on the 2026-07-28 wire and on a 2025-11-25
 * session. Plain Janus, with one empty middleware, and with OpenTelemetry tracing and
 * metrics (the SDK set up as bench/servers/janus.ts has it); and, for scale, the same span,
 * context switch and metric recordings made by hand with the SDK, without Janus. Then the heap
 * each call allocates, plain and with the middleware: V8's sampling heap profiler (every 64
 * bytes, collected objects included) over 100,000 calls, the request objects themselves not counted.
 */
import { Session } from 'node:inspector/promises';
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { serverTracing } from '../src/otel/index.js';
import { coreOf, type Inbound, type ServerCore } from '../src/spi/index.js';
import { createServer } from '../src/server/index.js';
import { droppingProviders, registerContextAndPropagation } from './lib/otel-sdk.js';

const CALLS = 40_000;
const ROUNDS = 5;
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

const { tracerProvider, meterProvider } = droppingProviders();

interface Target {
  core: ServerCore;
  modern: Inbound;
  legacy: Inbound;
}

async function target(variant: 'plain' | 'middleware' | 'otel'): Promise<Target> {
  const server = createServer({ name: 'in-process', version: '1.0.0' });
  if (variant === 'middleware') server.use((_ctx, next) => next());
  if (variant === 'otel') server.use(serverTracing({ tracerProvider, meterProvider }));
  server.tool('echo', () => 'x');
  const core = coreOf(server);
  const send = () => {};
  const channel = core.openChannel({ send });
  const legacy: Inbound = { transport: 'http', send, channel };
  const init = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } };
  await core.handle({ jsonrpc: '2.0', id: 0, method: 'initialize', params: init }, legacy);
  await core.handle({ jsonrpc: '2.0', method: 'notifications/initialized' }, legacy);
  return { core, legacy, modern: { transport: 'http', send } };
}

async function perCall(t: Target, era: 'modern' | 'legacy'): Promise<number> {
  const inbound = t[era];
  const start = performance.now();
  for (let i = 1; i <= CALLS; i++) {
    const params = era === 'modern' ? { name: 'echo', arguments: {}, _meta: META } : { name: 'echo', arguments: {} };
    await t.core.handle({ jsonrpc: '2.0', id: i, method: 'tools/call', params }, inbound);
  }
  return ((performance.now() - start) * 1000) / CALLS;
}

/** The SDK's own work for one traced request, by hand: extract, span, context switch, three metric recordings. */
async function sdkAlone(): Promise<number> {
  const tracer = tracerProvider.getTracer('by-hand');
  const meter = meterProvider.getMeter('by-hand');
  const histogram = meter.createHistogram('by-hand.duration');
  const active = meter.createUpDownCounter('by-hand.active');
  const getter = { keys: (c: Record<string, unknown>) => Object.keys(c), get: (c: Record<string, unknown>, k: string) => c[k] as string };
  const start = performance.now();
  for (let i = 1; i <= CALLS; i++) {
    const parent = propagation.extract(context.active(), META, getter);
    const attributes = { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'echo', 'jsonrpc.request.id': String(i) };
    const span = tracer.startSpan('tools/call echo', { kind: SpanKind.SERVER, attributes }, parent);
    active.add(1, { 'mcp.method.name': 'tools/call' });
    await context.with(trace.setSpan(parent, span), async () => 1);
    span.end();
    histogram.record(0.001, { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'echo' });
    active.add(-1, { 'mcp.method.name': 'tools/call' });
  }
  return ((performance.now() - start) * 1000) / CALLS;
}

/** Heap bytes allocated per call, sampled; the requests are built before sampling starts. */
async function allocated(t: Target, era: 'modern' | 'legacy'): Promise<number> {
  const n = 100_000;
  const inbound = t[era];
  const requests = Array.from({ length: n }, (_, i) => ({
    jsonrpc: '2.0' as const,
    id: i + 1,
    method: 'tools/call',
    params: era === 'modern' ? { name: 'echo', arguments: {}, _meta: META } : { name: 'echo', arguments: {} },
  }));
  const inspector = new Session();
  inspector.connect();
  await inspector.post('HeapProfiler.startSampling', {
    samplingInterval: 64,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  } as never);
  for (const request of requests) {
    const pending = t.core.handle(request, inbound);
    if (pending !== undefined) await pending;
  }
  const { profile } = await inspector.post('HeapProfiler.stopSampling');
  inspector.disconnect();
  let bytes = 0;
  const walk = (node: { selfSize: number; children: (typeof node)[] }): void => {
    bytes += node.selfSize;
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  return bytes / n;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const samples: Record<string, number[]> = {};
async function measure(targets: Record<string, Target>, byHand: boolean): Promise<void> {
  for (let round = 0; round < ROUNDS; round++) {
    for (const era of ['modern', 'legacy'] as const) {
      for (const [name, t] of Object.entries(targets)) {
        const us = await perCall(t, era);
        if (round >= 2) (samples[`${era} ${name}`] ??= []).push(us);
      }
    }
    if (!byHand) continue;
    const us = await sdkAlone();
    if (round >= 2) (samples['the SDK alone, by hand'] ??= []).push(us);
  }
}

// Without OpenTelemetry in the process, as a server that does not use it runs.
const untraced = { plain: await target('plain'), middleware: await target('middleware') };
await measure(untraced, false);
const bytes: string[] = [];
for (const era of ['modern', 'legacy'] as const)
  for (const [name, t] of Object.entries(untraced)) bytes.push(`  ${`${era} ${name}`.padEnd(34)} ${(await allocated(t, era)).toFixed(0)}`);
// The SDK's context manager hooks every promise of the process: plain Janus is measured again under it.
registerContextAndPropagation();
await measure({ 'plain, context manager on': await target('plain'), otel: await target('otel') }, true);

console.log(`µs per tools/call (median of ${ROUNDS - 2} rounds of ${CALLS.toLocaleString('en-US')}):`);
for (const [name, xs] of Object.entries(samples)) console.log(`  ${name.padEnd(34)} ${median(xs).toFixed(2)}`);
console.log('heap bytes allocated per tools/call (sampled):');
for (const line of bytes) console.log(line);
await tracerProvider.shutdown();
await meterProvider.shutdown();
process.exit(0);
