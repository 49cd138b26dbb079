/**
 * The control side of every server under test: the benchmark talks to the child over the
 * IPC channel (never over stdout, which is protocol on stdio), asking it to collect garbage
 * and report memory, or to make one `list_changed` happen. Nothing here runs per request.
 */
import { readFileSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';

export interface ServerArgs {
  transport: 'http' | 'stdio';
  /** HTTP only: `modern` (stateless 2026-07-28), `session` (2025-11-25 sessions) or `both`. */
  mode: 'modern' | 'session' | 'both';
  /** Extra tools registered beside `echo` (scenario 6: tools/list of 1,000 tools). */
  tools: number;
  /**
   * Janus only: observability on (`mw`: an empty middleware; `otel`: OpenTelemetry tracing and
   * metrics), or `tasks`: a task tool beside the others, so the tasks extension is on, or `auth`:
   * the `auth` option, JWT access tokens of a local authorization server (the token in the ready message).
   */
  variant: 'mw' | 'otel' | 'tasks' | 'auth' | undefined;
  /**
   * Janus only (scenario 8): its shared state on this Redis URL (`--redis`), on a Redis Cluster
   * by some of its nodes (`--redis-cluster host:port,…`) or on a Sentinel set
   * (`--redis-sentinels host:port,… --redis-sentinel-name <name>`), under `prefix`.
   */
  redis: string | undefined;
  redisCluster: string[] | undefined;
  redisSentinels: string[] | undefined;
  redisSentinelName: string | undefined;
  prefix: string | undefined;
}

export function parseServerArgs(argv: string[] = process.argv.slice(2)): ServerArgs {
  const get = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const transport = get('transport') === 'stdio' ? 'stdio' : 'http';
  const mode = (get('mode') ?? 'both') as ServerArgs['mode'];
  const variant = get('variant');
  if (variant !== undefined && variant !== 'mw' && variant !== 'otel' && variant !== 'tasks' && variant !== 'auth') {
    throw new Error(`unknown --variant ${variant} (mw, otel, tasks, auth)`);
  }
  const list = (name: string): string[] | undefined => get(name)?.split(',').filter(Boolean);
  return {
    transport,
    mode,
    tools: Number(get('tools') ?? 0),
    variant,
    redis: get('redis'),
    redisCluster: list('redis-cluster'),
    redisSentinels: list('redis-sentinels'),
    redisSentinelName: get('redis-sentinel-name'),
    prefix: get('prefix'),
  };
}

/** Name of the i-th extra tool; every implementation registers the same ones. */
export function extraToolName(i: number): string {
  return `tool_${String(i).padStart(4, '0')}`;
}

export interface Controls {
  /** Makes every open `subscriptions/listen` stream that asked for tools get one `list_changed`. */
  notifyToolsChanged?: () => void;
  /** More to report with `stats` (e.g. open connections, scenario 8). */
  stats?: () => Record<string, unknown>;
}

function vmHwmBytes(): number | undefined {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'latin1'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Committed bytes of each V8 heap space (new_space, old_space, code_space, …): where heapTotal goes (scenario 9). */
function heapSpaces(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const sp of getHeapSpaceStatistics()) out[sp.space_name] = sp.space_size;
  return out;
}

function memory() {
  const m = process.memoryUsage();
  return {
    rss: m.rss,
    heapUsed: m.heapUsed,
    heapTotal: m.heapTotal,
    external: m.external,
    arrayBuffers: m.arrayBuffers,
    hwm: vmHwmBytes(),
    cpu: process.cpuUsage(),
    heapSpaces: heapSpaces(),
  };
}

async function fullGc(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return;
  // Several passes with turns of the event loop between them, so that weak callbacks and
  // finalizers run and the next pass collects what they released.
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
}

/** Answers the benchmark's control messages; call once the server accepts requests. */
export function startControl(controls: Controls, ready: Record<string, unknown>): void {
  if (typeof process.send !== 'function') return; // started by hand: no control channel
  process.on('message', (msg: { op: string; seq: number }) => {
    const reply = (body: Record<string, unknown>): void => void process.send!({ seq: msg.seq, ...body });
    switch (msg.op) {
      case 'stats':
        reply({ ...memory(), ...controls.stats?.() });
        break;
      case 'gc':
        void fullGc().then(() => reply(memory()));
        break;
      case 'notify': {
        if (!controls.notifyToolsChanged) {
          reply({ error: 'not supported' });
          break;
        }
        const t = process.hrtime.bigint();
        controls.notifyToolsChanged();
        reply({ t: t.toString(), done: process.hrtime.bigint().toString() });
        break;
      }
      case 'heap-snapshot':
        // Only on request (bench/heap.ts): where the memory of open sessions and streams goes.
        void fullGc().then(async () => {
          const v8 = await import('node:v8');
          reply({ file: v8.writeHeapSnapshot((msg as { file?: string }).file) });
        });
        break;
      case 'exit':
        process.exit(0);
        break;
      default:
        reply({ error: `unknown op ${msg.op}` });
    }
  });
  // If the benchmark dies, its servers go with it instead of lingering.
  process.on('disconnect', () => process.exit(0));
  process.send({ seq: 0, op: 'ready', ...ready });
  // The IPC channel must not keep a stdio server alive once its client has gone.
  process.channel?.unref();
}
