/**
 * Janus MCP under test: one server definition, served over Streamable HTTP (both eras on
 * one endpoint, as a user would deploy it) or stdio. Same tools as the other servers.
 * Imported by package name, as a user does: the published (bundled) build, `dist/bundle`.
 */
import { createServer } from 'janus-mcp/server';
import { serveStdio } from 'janus-mcp/stdio';
import { serveHttp } from 'janus-mcp/http';
import { z } from 'zod';
import { extraToolName, parseServerArgs, startControl } from './control.js';

const args = parseServerArgs();
/** The scope every request needs with `--variant auth`; its token carries it. */
const SCOPE = 'mcp:tools';
// Scenario 8: the shared state on Redis (one process, or one worker of janus-cluster.ts).
const cluster = args.redis || args.redisCluster || args.redisSentinels ? await onRedis(args, args.prefix ?? 'janus-bench:') : undefined;
// `--variant tasks`: the tasks extension on (its tool-call hook runs for every call); loaded only then, as a program without tasks does not load it.
const taskExtension = args.variant === 'tasks' ? await import('janus-mcp/tasks') : undefined;
const server = createServer({
  name: 'janus-bench',
  version: '1.0.0',
  onError: (e) => console.error('[janus-bench]', e),
  ...(cluster ? { cluster } : {}),
  ...(taskExtension ? { extensions: [taskExtension.tasks()] } : {}),
});

server.tool('echo', { description: 'Echoes the text', input: z.object({ text: z.string() }) }, ({ text }) => text);

server.tool('ask', { description: 'Asks for a name (one MRTR round)', input: z.object({}) }, async (_args, ctx) => {
  const r = await ctx.elicit(
    { message: 'What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
    { key: 'name' },
  );
  return `hello ${String(r.content?.name)}`;
});

for (let i = 0; i < args.tools; i++) {
  server.tool(extraToolName(i), { description: `Extra tool ${i}`, input: z.object({ text: z.string() }) }, ({ text }) => text);
}

if (args.variant === 'mw') server.use((_ctx, next) => next());
// With the tasks extension: `echo_task` runs as a task for a client that declares it.
if (taskExtension) {
  server.tool(
    'echo_task',
    { input: z.object({ text: z.string() }), extensions: taskExtension.task({ support: 'optional', pollIntervalMs: 1 }) },
    ({ text }) => text,
  );
}
if (args.variant === 'otel') await instrument(server);

let changes = 0;
const notifyToolsChanged = (): void => {
  // A registration is what makes Janus publish tools/list_changed.
  server.tool(`added_${changes++}`, () => 'added');
};

if (args.transport === 'stdio') {
  await serveStdio(server);
  startControl({ notifyToolsChanged }, {});
} else {
  // `auth`: an OAuth resource server verifying JWT access tokens of a local authorization server.
  const issuer = args.variant === 'auth' ? await startIssuer() : undefined;
  const http = await serveHttp(server, {
    port: 0,
    host: '127.0.0.1',
    path: '/mcp',
    ...(issuer ? { auth: { issuer: issuer.issuer, scopes: [SCOPE] } } : {}),
  });
  // Open connections, so scenario 8 can tell how node:cluster spread them over the workers.
  let connections = 0;
  // One shared listener ('close' comes once per socket): nothing kept per connection that bare does not keep.
  const closed = () => {
    connections--;
  };
  http.httpServer.on('connection', (socket) => {
    connections++;
    socket.on('close', closed);
  });
  // The audience is the resource the server derives from each request (Host + path), as on loopback.
  const token = issuer ? await issuer.sign(`http://127.0.0.1:${http.port}/mcp`, SCOPE) : undefined;
  startControl(
    { notifyToolsChanged, stats: () => ({ connections, ...(issuer ? { issuerFetches: issuer.fetches } : {}) }) },
    { port: http.port, path: '/mcp', ...(token ? { token } : {}) },
  );
}

/** The authorization server (and jose) is loaded only by the `auth` variant. */
async function startIssuer() {
  const { startIssuer: start } = await import('../lib/authorization-server.js');
  return start();
}

/** `janus-mcp/redis` is loaded only when asked for, so the other scenarios' server loads no Redis code. */
async function onRedis(a: typeof args, prefix: string) {
  const { redisCluster } = await import('janus-mcp/redis');
  if (a.redisCluster) return redisCluster({ cluster: { nodes: a.redisCluster }, prefix });
  if (a.redisSentinels) return redisCluster({ sentinel: { sentinels: a.redisSentinels, name: a.redisSentinelName ?? 'janus' }, prefix });
  return redisCluster({ url: a.redis!, prefix });
}

/**
 * Tracing and metrics as a deployment would have them: the SDK's tracer provider with a batch
 * processor and W3C propagation, a meter provider with a periodic reader. The exporters drop
 * what they get, so the cost measured is Janus's instrumentation and the SDK's, not a network's.
 */
async function instrument(target: typeof server): Promise<void> {
  const { droppingProviders, registerContextAndPropagation } = await import('../lib/otel-sdk.js');
  const { instrumentServer } = await import('janus-mcp/otel');
  registerContextAndPropagation();
  instrumentServer(target, droppingProviders());
}
