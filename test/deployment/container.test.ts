/**
 * docs/deployment.md, "A container image". There is no container engine here, so the page's
 * Dockerfile is run the way its instructions read, each stage in a temporary folder standing for
 * its WORKDIR: COPY (from the build context or `--from` a stage), ENV, RUN, then the HEALTHCHECK
 * command and the CMD. The build context is the page's package with Janus's own packed tarball.
 * What this cannot check: the base image, USER switching, EXPOSE and the image's networking.
 */
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { connect } from '../../src/client/index.js';
import { packFreshClone, run } from '../package/support.js';
import { baseEnv, freePort, pageFile, replaced, start, stop, writePackage, type Started } from './support.js';

const work = mkdtempSync(join(tmpdir(), 'janus-container-'));
const started: Started[] = [];
after(async () => {
  for (const p of started) await stop(p, 'SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

interface Stage {
  name: string;
  image: string;
  dir: string;
  workdir?: string;
  env: Record<string, string>;
  user?: string;
  healthcheck?: string[];
  stopSignal?: string;
  cmd?: string[];
}

/** The Dockerfile's instructions, continuation lines joined, comments dropped. */
function instructions(dockerfile: string): Array<[string, string]> {
  return dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const [keyword, ...rest] = l.split(/\s+/);
      return [keyword!.toUpperCase(), rest.join(' ')];
    });
}

/** A path inside a stage's image, as a path in its folder (its WORKDIR is the folder). */
function inStage(stage: Stage, path: string): string {
  const workdir = stage.workdir ?? '/';
  const absolute = path.startsWith('/') ? path : join(workdir, path);
  assert.ok(absolute === workdir || absolute.startsWith(`${workdir}/`), `${path}: only paths under WORKDIR ${workdir} are emulated`);
  return join(stage.dir, absolute.slice(workdir.length));
}

/** Runs the Dockerfile's build in folders; returns its stages, the last one being the image. */
async function build(dockerfile: string, context: string): Promise<Stage[]> {
  const stages: Stage[] = [];
  for (const [keyword, args] of instructions(dockerfile)) {
    const stage = stages.at(-1);
    if (keyword === 'FROM') {
      const [image, as, name] = args.split(/\s+/);
      stages.push({
        name: as?.toUpperCase() === 'AS' ? name! : String(stages.length),
        image: image!,
        dir: join(work, `stage-${stages.length}`),
        env: {},
      });
      mkdirSync(stages.at(-1)!.dir, { recursive: true });
      continue;
    }
    assert.ok(stage, `${keyword} before FROM`);
    if (keyword === 'WORKDIR') stage.workdir = args;
    else if (keyword === 'ENV')
      for (const pair of args.split(/\s+/)) {
        const eq = pair.indexOf('=');
        stage.env[pair.slice(0, eq)] = pair.slice(eq + 1);
      }
    else if (keyword === 'COPY') {
      const words = args.split(/\s+/);
      const from = words[0]!.startsWith('--from=') ? stages.find((s) => s.name === words.shift()!.slice('--from='.length)) : undefined;
      const dest = words.pop()!;
      for (const source of words) {
        const origin = from ? inStage(from, source) : join(context, source);
        const target = dest.endsWith('/') ? join(inStage(stage, dest), source.split('/').at(-1)!) : inStage(stage, dest);
        cpSync(origin, target, { recursive: true });
      }
    } else if (keyword === 'RUN')
      await run('sh', ['-c', args], {
        cwd: stage.dir,
        // An image build has an npm cache of its own (the Dockerfile cleans it): never this machine's.
        env: { ...baseEnv(stage.env), npm_config_update_notifier: 'false', npm_config_cache: join(work, 'image-npm-cache') },
      });
    else if (keyword === 'USER') stage.user = args;
    else if (keyword === 'STOPSIGNAL') stage.stopSignal = args;
    else if (keyword === 'CMD') stage.cmd = JSON.parse(args) as string[];
    else if (keyword === 'HEALTHCHECK') stage.healthcheck = JSON.parse(args.slice(args.indexOf('CMD ') + 4)) as string[];
    else if (keyword !== 'EXPOSE') assert.fail(`${keyword}: an instruction this emulation does not know`);
  }
  return stages;
}

/** A 2026-07-28 `server/discover` sent with a given Host header: the status it gets. */
function discoverWithHost(port: number, host: string): Promise<number> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'server/discover',
    params: {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'container-test', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port,
      path: '/mcp',
      method: 'POST',
      headers: {
        host,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'server/discover',
      },
    });
    req.once('error', reject);
    req.once('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.end(body);
  });
}

test("the Dockerfile's stages build the server, and its CMD serves it with the image's settings", { timeout: 900_000 }, async () => {
  const janus = await packFreshClone(work);
  const context = join(work, 'context');
  writePackage(context, janus.tarball);
  // The user's committed lock file, which `npm ci` needs.
  await run('npm', ['install', '--package-lock-only', '--loglevel=error'], {
    cwd: context,
    env: { ...process.env, npm_config_update_notifier: 'false', npm_config_prefer_offline: 'true' },
  });

  const stages = await build(pageFile('Dockerfile'), context);
  assert.deepEqual(
    stages.map((s) => s.image),
    ['node:20-slim', 'node:20-slim'],
    'two stages on node:20-slim',
  );
  const image = stages.at(-1)!;
  assert.ok(image.user && image.user !== 'root' && image.user !== '0', 'the image runs as a user other than root');
  assert.ok(existsSync(join(image.dir, 'dist', 'server.js')), 'the build stage made dist/server.js and it was copied over');
  assert.ok(existsSync(join(image.dir, 'node_modules', 'janus-mcp')), 'production dependencies are installed');
  assert.ok(!existsSync(join(image.dir, 'node_modules', 'typescript')), 'dev dependencies are not');
  assert.equal(image.env.HOST, '0.0.0.0');
  assert.equal(image.stopSignal, 'SIGTERM');

  // CMD with the image's environment; only the port differs, and the interface: tests here
  // listen on loopback only.
  const port = await freePort();
  const [command, ...args] = image.cmd!;
  assert.equal(command, 'node');
  const server = start(process.execPath, args, { cwd: image.dir, env: baseEnv({ ...image.env, PORT: String(port), HOST: '127.0.0.1' }) });
  started.push(server);

  const health = image.healthcheck!.map((w) => (w.includes(':3000/') ? replaced(w, ':3000/', `:${port}/`) : w));
  const healthy = async () =>
    run(join(image.dir, health[0]!), health.slice(1), { cwd: image.dir }).then(
      () => true,
      () => false,
    );
  const deadline = Date.now() + 120_000;
  while (!(await healthy())) {
    assert.ok(Date.now() < deadline && server.child.exitCode === null, `the HEALTHCHECK command never passed:\n${server.output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }

  const client = await connect(`http://127.0.0.1:${port}/mcp`);
  try {
    assert.deepEqual(
      (await client.listTools()).tools.map((t) => t.name),
      ['add_note'],
    );
  } finally {
    await client.close();
  }
  assert.equal(await discoverWithHost(port, 'mcp.example.com'), 200, 'the public name in ALLOWED_HOSTS');
  assert.equal(await discoverWithHost(port, 'localhost:3000'), 200, 'a published port on the host');
  assert.equal(await discoverWithHost(port, 'attacker.example'), 403, 'any other name is refused');

  server.child.kill(image.stopSignal as NodeJS.Signals);
  assert.deepEqual(await server.exited, { code: 0, signal: null }, server.output());
});
