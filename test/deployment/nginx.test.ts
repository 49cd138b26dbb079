/**
 * docs/deployment.md, "Behind nginx with TLS": the page's nginx configuration (other ports, a
 * certificate made here by openssl) in front of the page's server. The Janus client trusts the
 * certificate and reaches https://mcp.example.com:<port>/mcp (resolved to 127.0.0.1), calls the
 * tool in both eras, and hears notifications on a 2026-07-28 listen stream and on a 2025-11-25
 * session's GET stream while they stay open: nginx passes events on without buffering them.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect as connectSocket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { connect } from '../../src/client/index.js';
import { run } from '../package/support.js';
import { until } from '../support/wait.js';
import { baseEnv, builtServer, freePort, httpsFetchVia, pageFile, replaced, start, stop, waitForOutput, type Started } from './support.js';

const NGINX = '/usr/sbin/nginx';
const skip = existsSync(NGINX) ? false : `nginx is not installed at ${NGINX} (Debian: apt-get install nginx)`;
const work = mkdtempSync(join(tmpdir(), 'janus-nginx-'));
const started: Started[] = [];
let base = '';
let httpsFetch: typeof fetch;

function nginxConfig(dir: string, listenPort: number, serverPort: number): string {
  let site = pageFile('my-mcp-server.nginx.conf');
  site = replaced(site, 'listen 443 ssl;', `listen 127.0.0.1:${listenPort} ssl;`);
  site = replaced(site, 'server 127.0.0.1:3000;', `server 127.0.0.1:${serverPort};`);
  site = replaced(site, '/etc/ssl/certs/mcp.example.com.pem', join(dir, 'cert.pem'));
  site = replaced(site, '/etc/ssl/private/mcp.example.com.key', join(dir, 'key.pem'));
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `    ${t}_temp_path ${join(dir, t)};`).join('\n');
  return `worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections 256; }
http {
    access_log ${join(dir, 'access.log')};
${temp}
${site}
}
`;
}

const connects = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connectSocket(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });

before(async () => {
  if (skip) return;
  const dir = join(work, 'nginx');
  mkdirSync(join(dir, 'logs'), { recursive: true });
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=mcp.example.com',
    '-addext',
    'subjectAltName=DNS:mcp.example.com',
    '-keyout',
    join(dir, 'key.pem'),
    '-out',
    join(dir, 'cert.pem'),
  ]);
  httpsFetch = httpsFetchVia('127.0.0.1', readFileSync(join(dir, 'cert.pem'), 'utf8'));

  // The server as the systemd unit runs it: loopback only, and only the public name in Host.
  const serverPort = await freePort();
  const server = start(process.execPath, ['dist/server.js', '--http'], {
    cwd: builtServer(join(work, 'server')),
    env: baseEnv({ HOST: '127.0.0.1', PORT: String(serverPort), ALLOWED_HOSTS: 'mcp.example.com' }),
  });
  started.push(server);
  await waitForOutput(server, 'listening on');

  const listenPort = await freePort();
  writeFileSync(join(dir, 'nginx.conf'), nginxConfig(dir, listenPort, serverPort));
  await run(NGINX, ['-t', '-p', dir, '-c', join(dir, 'nginx.conf')]);
  const nginx = start(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], { cwd: dir, env: baseEnv({}) });
  started.push(nginx);
  await until(() => connects(listenPort) || nginx.child.exitCode !== null, 'nginx to listen', 60_000);
  assert.equal(nginx.child.exitCode, null, `nginx exited:\n${nginx.output()}\n${readFileSync(join(dir, 'error.log'), 'utf8')}`);
  base = `https://mcp.example.com:${listenPort}/mcp`;
});

after(async () => {
  for (const p of started.reverse()) await stop(p); // nginx by its PID, then the server
  rmSync(work, { recursive: true, force: true });
});

for (const era of ['modern', 'legacy'] as const) {
  test(`a ${era} client calls the tool over https through nginx`, { skip, timeout: 120_000 }, async () => {
    const client = await connect(base, { fetch: httpsFetch, era });
    try {
      assert.equal(client.era, era);
      assert.deepEqual(
        (await client.listTools()).tools.map((t) => t.name),
        ['add_note'],
      );
      const result = await client.callTool('add_note', { text: `over https, ${era}` });
      assert.match(JSON.stringify(result.content), /\d+ note\(s\)/);
    } finally {
      await client.close();
    }
  });

  const stream = era === 'modern' ? 'a subscriptions/listen stream' : "a session's GET stream";
  test(`${stream} (${era}) delivers notifications through nginx while it stays open`, { skip, timeout: 120_000 }, async () => {
    const listener = await connect(base, { fetch: httpsFetch, era });
    const caller = await connect(base, { fetch: httpsFetch, era: 'modern' });
    const heard: string[] = [];
    let ended = false;
    const stop = new AbortController();
    const loop = (async () => {
      for await (const n of listener.listen({ resourceSubscriptions: ['notes://all'] }, { signal: stop.signal }))
        if (n.method === 'notifications/resources/updated') heard.push(String(n.params?.uri));
      ended = true;
    })();
    try {
      // The stream may still be opening: add notes until one is heard, then one more, which must
      // arrive on the same open stream (a buffering proxy would hold both until the stream ends).
      await until(
        async () => {
          await caller.callTool('add_note', { text: 'first' });
          return heard.length > 0;
        },
        'the first notification through nginx',
        60_000,
      );
      const before = heard.length;
      await caller.callTool('add_note', { text: 'second' });
      await until(() => heard.length > before, 'the second notification through nginx', 60_000);
      assert.equal(ended, false, 'the stream is still open');
      assert.ok(heard.every((uri) => uri === 'notes://all'));
    } finally {
      stop.abort();
      await loop.catch(() => undefined);
      await listener.close();
      await caller.close();
    }
  });
}
