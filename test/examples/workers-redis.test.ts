/**
 * examples/workers-redis as a user gets it: installed, built, started on a real redis-server
 * with WORKERS=2 by the command its README gives, called with the README's janus-mcp commands,
 * then driven by the Janus client in both eras over a new connection per request (so that
 * node:cluster hands consecutive requests to different workers): input_required rounds and a
 * 2025 session's elicitation complete across workers. SIGTERM to the primary drains the workers
 * with calls in flight in both eras, and the primary exits 0.
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { connect } from '../../src/client/index.js';
import { pidAlive } from '../support/common.js';
import { freePort, startRedis, type RedisServer } from '../redis/support.js';
import { until } from '../support/wait.js';
import { installExample, type Project, readmeCommands, typeCheckReadme, run, type Started, startProcess } from './support.js';

const NAME = 'workers-redis';
const READY = /(\d+) workers listening on (http:\/\/\S+)/;

/**
 * A fetch that opens a new connection for every request (no keep-alive): node:cluster hands
 * each new connection to the next worker, so consecutive requests of one client reach
 * different workers, as they do behind a load balancer.
 */
const freshConnectionFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  const body = request.body === null ? undefined : Buffer.from(await request.arrayBuffer());
  return new Promise<Response>((resolve, reject) => {
    const req = httpRequest(request.url, { method: request.method, headers: Object.fromEntries(request.headers), agent: false }, (res) => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers.set(name, String(value));
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          res.on('data', (chunk: Buffer) => controller.enqueue(new Uint8Array(chunk)));
          res.on('end', () => controller.close());
          res.on('error', (e) => controller.error(e));
        },
        cancel: () => void res.destroy(),
      });
      resolve(new Response(res.statusCode === 204 || res.statusCode === 202 ? null : stream, { status: res.statusCode!, headers }));
    });
    req.on('error', reject);
    request.signal.addEventListener('abort', () => req.destroy(), { once: true });
    req.end(body);
  });
};

/** `NAME=value … command args…` as an environment and a command line. */
function parseCommand(line: string): { env: Record<string, string>; argv: string[] } {
  const words = line.split(/\s+/);
  const env: Record<string, string> = {};
  while (/^[A-Z_]+=/.test(words[0]!)) {
    const [name, ...value] = words.shift()!.split('=');
    env[name!] = value.join('=');
  }
  return { env, argv: words };
}

let redis: RedisServer;
let project: Project;
let primary: Started;
let url: URL;
const workerPids = (): number[] => [...primary.stderr().matchAll(/worker (\d+) listening on/g)].map((m) => Number(m[1]));

before(async () => {
  redis = await startRedis();
  project = await installExample(NAME);
});
after(async () => {
  if (primary !== undefined && primary.child.exitCode === null && primary.child.signalCode === null) primary.child.kill('SIGKILL');
  for (const pid of primary === undefined ? [] : workerPids()) if (pidAlive(pid)) process.kill(pid, 'SIGKILL');
  await redis?.stop();
  project?.remove();
});

const text = (result: { content: Array<{ type: string; text?: string }> }) => result.content.map((c) => c.text ?? '').join('');

describe('two workers on one port, started as the README says', () => {
  before(async () => {
    const commands = readmeCommands(NAME);
    assert.deepEqual(commands.slice(0, 2), ['npm install', 'npm run build'], 'installExample ran these');
    const start = parseCommand(commands[2]!);
    assert.deepEqual(start.env, { REDIS_URL: 'redis://127.0.0.1:6379', PORT: '3000', WORKERS: '2' });
    assert.deepEqual(start.argv, ['node', 'dist/main.js']);
    // The same command, on the test's Redis and a free port.
    const env = { ...start.env, REDIS_URL: redis.url, PORT: String(await freePort()) };
    primary = await startProcess(start.argv[0]!, start.argv.slice(1), { cwd: project.dir, env, ready: READY, timeoutMs: 60_000 });
    url = new URL(READY.exec(primary.stderr())![2]!);
    assert.equal(url.port, env.PORT);
    assert.equal(workerPids().length, 2);
  });

  test("the README's janus-mcp commands: the workers take turns, greet completes in both eras", async () => {
    const calls = readmeCommands(NAME).slice(3);
    assert.equal(calls.length, 5);
    const outputs: string[] = [];
    for (const line of calls) {
      const command = line.replaceAll('http://127.0.0.1:3000/mcp', url.href);
      outputs.push((await run('sh', ['-c', command], { cwd: project.dir })).stdout.trim());
    }
    const [first, second, written, greetModern, greetLegacy] = outputs;
    const pids = [first, second].map((o) => (JSON.parse(o!) as { pid: number }).pid);
    assert.deepEqual(pids.sort(), workerPids().sort(), 'each whoami, on its own connection, reached another worker');
    assert.equal(written, '');
    for (const greeting of [greetModern, greetLegacy]) {
      const m = /^Hello, Ada! \(answered by worker (\d+)\)$/.exec(greeting!);
      assert.ok(m && workerPids().includes(Number(m[1])), greeting);
    }
  });

  for (const protocolVersion of ['2026-07-28', '2025-11-25'] as const) {
    test(`${protocolVersion}: the Janus client, a new connection per request, is served by both workers`, async () => {
      const asked: string[] = [];
      const client = await connect(url.href, {
        fetch: freshConnectionFetch,
        ...(protocolVersion === '2025-11-25' ? { protocolVersion } : {}),
        onElicit: async (request) => {
          asked.push(request.message);
          return { action: 'accept', content: { name: 'Grace' } };
        },
      });
      try {
        assert.equal(client.protocolVersion, protocolVersion);
        const seen = new Set<number>();
        for (let i = 0; i < 6; i++) seen.add(((await client.callTool('whoami', {})).structuredContent as { pid: number }).pid);
        assert.deepEqual([...seen].sort(), workerPids().sort(), 'every worker answered this one client');

        const crossings: boolean[] = [];
        for (let i = 0; i < 4; i++) {
          const result = text(await client.callTool('greet', {}));
          const answered = /^Hello, Grace! \(answered by worker (\d+)\)$/.exec(result);
          assert.ok(answered, result);
          const asker = /^Worker (\d+) asks/.exec(asked.at(-1)!)![1];
          crossings.push(asker !== answered[1]);
        }
        assert.equal(asked.length, 4);
        if (protocolVersion === '2026-07-28') {
          // The question came from one worker and the retry, on a new connection, reached the other.
          assert.ok(crossings.includes(true), 'an input_required round was retried on another worker');
        } else {
          // One handler asked and answered; its answer was POSTed on a new connection, to whichever worker.
          assert.ok(!crossings.includes(true));
        }
      } finally {
        await client.close();
      }
    });
  }

  test('SIGTERM to the primary drains both workers: the calls in flight in both eras finish, then it exits 0', async () => {
    const progressed: string[] = [];
    const modern = await connect(url.href);
    const legacy = await connect(url.href, { protocolVersion: '2025-11-25' });
    const pids = workerPids();
    try {
      const calls = [modern, legacy].map((client, i) =>
        client.callTool('countdown', { steps: 15 }, { onProgress: () => void progressed.push(String(i)), timeoutMs: 60_000 }),
      );
      await until(() => progressed.includes('0') && progressed.includes('1'), 'both calls under way', 30_000);
      primary.child.kill('SIGTERM');
      const results = await Promise.all(calls);
      for (const result of results) assert.match(text(result), /^Counted down 15 steps on worker \d+\.$/);
      assert.equal(await primary.exit, 0, primary.stderr());
      for (const pid of pids) {
        assert.match(primary.stderr(), new RegExp(`worker ${pid} drained`));
        await until(() => !pidAlive(pid), `worker ${pid} to be gone`, 10_000);
      }
      await assert.rejects(connect(url.href, { timeoutMs: 5000 }), 'nothing listens any more');
    } finally {
      await Promise.all([modern.close(), legacy.close()]);
    }
  });
});

test('without REDIS_URL the program refuses to start, saying what to set', async () => {
  await assert.rejects(
    run('node', ['dist/main.js'], { cwd: project.dir, env: { ...process.env, REDIS_URL: '', WORKERS: '2' } }),
    (e: Error) => {
      assert.match(e.message, /workers-redis: set REDIS_URL \(e\.g\. redis:\/\/127\.0\.0\.1:6379\)/);
      return true;
    },
  );
});

test('with an unreachable Redis the start fails fast: exit 1, the reason, no restart loop', async () => {
  const env = { ...process.env, REDIS_URL: `redis://127.0.0.1:${await freePort()}`, PORT: String(await freePort()), WORKERS: '2' };
  await assert.rejects(run('node', ['dist/main.js'], { cwd: project.dir, env, timeout: 60_000 }), (e: Error) => {
    assert.match(e.message, /Cannot reach Redis at redis:\/\/127\.0\.0\.1:\d+/);
    assert.match(e.message, /before listening; stopping/);
    assert.doesNotMatch(e.message, /starting another/);
    return true;
  });
});

test("the README's TypeScript compiles against the package", async () => {
  assert.deepEqual(await typeCheckReadme(project, NAME), []);
});
