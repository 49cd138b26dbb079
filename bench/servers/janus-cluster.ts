/**
 * Scenario 8's configuration (c): the primary of N `node:cluster` workers, each the Janus
 * bench server (janus.ts) on one Redis, all on one port (the primary holds the listening
 * socket and hands each new connection to a worker in turn).
 *
 *   node janus-cluster.js --workers 2 --redis redis://127.0.0.1:6380 --prefix bench-1: --mode modern
 *
 * (or `--redis-cluster host:port,…`, or `--redis-sentinels host:port,… --redis-sentinel-name n`,
 * passed on to every worker as janus.ts reads them).
 *
 * It answers the benchmark's control messages for all of them: `ready` once every worker
 * listens (with the port and the workers' PIDs, whose CPU the benchmark adds up), `stats`
 * (each worker's open connections and memory), `gc`, and `notify`, which one worker (the
 * first) publishes, so the others hear it only through Redis.
 */
import cluster, { type Worker } from 'node:cluster';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

type Message = Record<string, unknown> & { seq: number; op?: string };

const workers: Worker[] = [];
const waiting = new Map<number, (m: Message) => void>();
let seq = 0;
let port = 0;
let listening = 0;

const argv = process.argv.slice(2);
const get = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const count = Number(get('workers') ?? 2);
/** Where the workers keep their shared state: the Redis options as given, passed on as they are. */
const redisArgs = ['redis', 'redis-cluster', 'redis-sentinels', 'redis-sentinel-name'].flatMap((name) => {
  const v = get(name);
  return v === undefined ? [] : [`--${name}`, v];
});
if (!Number.isInteger(count) || count < 1 || redisArgs.length === 0)
  fail(
    'usage: janus-cluster.js --workers <n> (--redis <url> | --redis-cluster <nodes> | --redis-sentinels <sentinels> --redis-sentinel-name <name>) [--prefix p] [--mode m]',
  );

const here = dirname(fileURLToPath(import.meta.url));
cluster.setupPrimary({
  exec: join(here, 'janus.js'),
  execArgv: ['--expose-gc'],
  args: ['--transport', 'http', '--mode', get('mode') ?? 'modern', ...redisArgs, '--prefix', get('prefix') ?? 'janus-bench:'],
});

/** One control message to one worker (janus.ts's startControl answers it). */
function ask(worker: Worker, op: string): Promise<Message> {
  const s = ++seq;
  return new Promise((resolve) => {
    waiting.set(s, resolve);
    worker.send({ op, seq: s });
  });
}

for (let i = 0; i < count; i++) {
  const worker = cluster.fork();
  workers.push(worker);
  worker.on('message', (m: Message) => {
    if (m.op === 'ready') {
      if (port !== 0 && Number(m.port) !== port) fail(`worker ${worker.process.pid} listens on ${m.port}, not ${port}`);
      port = Number(m.port);
      if (++listening === count) ready();
      return;
    }
    const w = waiting.get(m.seq);
    if (w) {
      waiting.delete(m.seq);
      w(m);
    }
  });
  // A worker that dies ends the configuration: the benchmark sees the primary exit.
  worker.on('exit', (code, signal) => fail(`worker ${worker.process.pid} exited (${code ?? signal})`));
}

function ready(): void {
  if (typeof process.send !== 'function') {
    console.error(`janus-cluster: ${count} workers on http://127.0.0.1:${port}/mcp`);
    return;
  }
  process.on('message', (msg: Message) => {
    const reply = (body: Record<string, unknown>): void => void process.send!({ seq: msg.seq, ...body });
    switch (msg.op) {
      case 'stats':
        void Promise.all(workers.map((w) => ask(w, 'stats'))).then((all) =>
          reply({ workers: all.map((m, i) => ({ pid: workers[i]!.process.pid, connections: m.connections, rss: m.rss })) }),
        );
        break;
      case 'gc':
        void Promise.all(workers.map((w) => ask(w, 'gc'))).then((all) => {
          const sum = (k: string): number => all.reduce((s, m) => s + Number(m[k]), 0);
          reply({ rss: sum('rss'), heapUsed: sum('heapUsed'), external: sum('external'), arrayBuffers: sum('arrayBuffers') });
        });
        break;
      case 'notify':
        void ask(workers[0]!, 'notify').then((m) => reply({ t: m.t, done: m.done, error: m.error }));
        break;
      case 'exit':
        stopAll(0);
        break;
      default:
        reply({ error: `unknown op ${msg.op}` });
    }
  });
  process.on('disconnect', () => stopAll(0));
  process.send({ seq: 0, op: 'ready', port, path: '/mcp', pids: workers.map((w) => w.process.pid) });
}

function stopAll(code: number): never {
  for (const w of workers) {
    w.removeAllListeners('exit');
    w.process.kill('SIGKILL');
  }
  process.exit(code);
}

function fail(reason: string): never {
  console.error(`janus-cluster: ${reason}`);
  return stopAll(1);
}
