/**
 * Real clients through a round-robin load balancer in front of three instances on one Redis
 * (docs/scale-out.md), as users deploy a scaled server: no sticky sessions, each HTTP request to the
 * next instance. The official TypeScript SDK v2 client and Janus's own client keep one legacy
 * Streamable HTTP session (2025-11-25, 2025-06-18) whose requests, elicitation answers and GET
 * stream land on different instances: tools, both kinds of elicitation (on the POST's stream
 * and on the session's GET stream), the log level, a resource subscription and a list change
 * each heard once, then DELETE ends the session everywhere. A 2026-07-28 Janus client's
 * multi-round `input_required` call completes though each retry lands on another instance.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client as SdkClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as SdkV1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as SdkV1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { connect } from '../../src/client/index.js';
import type { ProtocolVersion } from '../../src/protocol/versions.js';
import { textOf } from '../client/helpers.js';
import type { RedisCluster } from '../../src/redis/index.js';
import { createServer } from '../../src/server/index.js';
import { until } from '../support/wait.js';
import { rpc, startBalancer, type Balancer, type Forwarded } from './balancer.js';
import { startInstances, startRedis, uniquePrefix, type Instance, type RedisServer } from './support.js';

const WATCHED = 'test://watched';
const NAME = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } as const;
const LABELS = ['A', 'B', 'C'];
/** Per-request timeout of the clients: a request lost between instances fails its test, without the 60 s default. */
const TIMEOUT_MS = 10_000;

function definer() {
  let n = 0;
  return (cluster: RedisCluster) => {
    const label = LABELS[n++] ?? '?';
    const server = createServer({ name: 'balanced', version: '1.0.0', cluster });
    server.tool('whoami', { description: 'the instance that serves the call' }, () => label);
    server.tool('log_both', { description: 'logs at debug and at error' }, (_args, ctx) => {
      ctx.log('debug', 'quiet');
      ctx.log('error', 'loud');
      return 'logged';
    });
    server.tool('ask_on_post', { description: "asks on the call's own stream" }, async (_args, ctx) => {
      const answer = await ctx.elicit({ message: 'Name on the POST stream?', requestedSchema: NAME });
      return `${label} got ${String(answer.content?.name)}`;
    });
    server.tool('ask_on_session', { description: "asks on the session's GET stream" }, async (_args, ctx) => {
      const answer = await ctx.session!.elicit({ message: 'Name on the GET stream?', requestedSchema: NAME });
      return `${label} got ${String(answer.content?.name)}`;
    });
    server.tool('two_questions', { description: 'two input_required rounds' }, async (_args, ctx) => {
      const first = await ctx.elicit({ message: 'First name?', requestedSchema: NAME }, { key: 'first' });
      const last = await ctx.elicit({ message: 'Last name?', requestedSchema: NAME }, { key: 'last' });
      return `Hello, ${String(first.content?.name)} ${String(last.content?.name)}!`;
    });
    server.resource(WATCHED, { name: 'watched' }, 'watched text');
    return server;
  };
}

let redis: RedisServer;
before(async () => {
  redis = await startRedis();
});
after(async () => {
  await redis?.stop();
});

interface Deployment {
  readonly instances: Instance[];
  readonly balancer: Balancer;
  close(): Promise<void>;
}

/** Three instances on one Redis behind a round-robin balancer. */
async function deploy(): Promise<Deployment> {
  const { instances, close } = await startInstances(3, redis.target, uniquePrefix(), definer());
  let balancer: Balancer;
  try {
    balancer = await startBalancer(instances.map((i) => i.served.url));
  } catch (error) {
    await close();
    throw error;
  }
  return {
    instances,
    balancer,
    async close() {
      try {
        await balancer.close();
      } finally {
        await close();
      }
    },
  };
}

/** The forwarded POST carrying a message that `match` accepts. */
function posted(b: Balancer, match: (m: Record<string, any>) => boolean): Forwarded | undefined {
  return b.log.find((f) => f.method === 'POST' && rpc(f).some(match));
}
const callOf = (tool: string) => (m: Record<string, any>) => m.method === 'tools/call' && m.params?.name === tool;

/** What a legacy client does in the scenario, whichever library it is. */
interface LegacyDriver {
  readonly sessionId: string;
  /** `deleteSession()` sends DELETE while the client still holds its GET stream (else it drops the stream first). */
  readonly deletesWithStreamOpen: boolean;
  /** Every notification the client's handlers got, in order. */
  readonly notifications: Array<{ method: string; params?: Record<string, any> }>;
  /** The messages of the elicitations its handler answered (always with the name Ada). */
  readonly asked: string[];
  toolNames(): Promise<string[]>;
  call(tool: string): Promise<string>;
  setLevel(level: 'warning'): Promise<void>;
  subscribe(uri: string): Promise<void>;
  /** Ends the session (DELETE). */
  deleteSession(): Promise<void>;
  close(): Promise<void>;
}

type Notice = { method: string; params?: Record<string, any> };

async function sdkDriver(url: URL, version: ProtocolVersion, _b?: Balancer): Promise<LegacyDriver> {
  const notifications: Notice[] = [];
  const asked: string[] = [];
  const client = new SdkClient(
    { name: 'sdk-through-balancer', version: '2.4.0' },
    { capabilities: { elicitation: {} }, supportedProtocolVersions: [version] },
  );
  client.setRequestHandler('elicitation/create', (request) => {
    asked.push(String(request.params.message));
    return { action: 'accept', content: { name: 'Ada' } };
  });
  for (const method of ['notifications/message', 'notifications/resources/updated', 'notifications/tools/list_changed'] as const) {
    client.setNotificationHandler(method, (n) => void notifications.push({ method: n.method, params: n.params as Record<string, any> }));
  }
  const transport = new StreamableHTTPClientTransport(url);
  await client.connect(transport);
  assert.equal(transport.protocolVersion, version);
  const text = (r: { content?: unknown }) => (r.content as Array<{ text?: string }>)[0]?.text ?? '';
  return {
    sessionId: transport.sessionId!,
    notifications,
    asked,
    toolNames: async () => (await client.listTools()).tools.map((t) => t.name),
    deletesWithStreamOpen: true,
    call: async (tool) => text(await client.callTool({ name: tool, arguments: {} }, { timeout: TIMEOUT_MS })),
    setLevel: async (level) => void (await client.setLoggingLevel(level, { timeout: TIMEOUT_MS })),
    subscribe: async (uri) => void (await client.subscribeResource({ uri }, { timeout: TIMEOUT_MS })),
    deleteSession: () => transport.terminateSession(),
    close: () => client.close(),
  };
}

/** The SDK v1 client: it always offers its latest revision, 2025-11-25. */
async function sdkV1Driver(url: URL, version: ProtocolVersion, _b?: Balancer): Promise<LegacyDriver> {
  assert.equal(version, '2025-11-25', 'SDK v1 cannot be pinned');
  const notifications: Notice[] = [];
  const asked: string[] = [];
  const client = new SdkV1Client({ name: 'sdk-v1-through-balancer', version: '1.32.2' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(String(request.params.message));
    return { action: 'accept', content: { name: 'Ada' } };
  });
  for (const schema of [LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema]) {
    client.setNotificationHandler(schema, (n) => void notifications.push({ method: n.method, params: n.params as Record<string, any> }));
  }
  const transport = new SdkV1Transport(url);
  await client.connect(transport);
  assert.equal(transport.protocolVersion, version);
  const text = (r: { content?: unknown }) => (r.content as Array<{ text?: string }>)[0]?.text ?? '';
  return {
    sessionId: transport.sessionId!,
    deletesWithStreamOpen: true,
    notifications,
    asked,
    toolNames: async () => (await client.listTools()).tools.map((t) => t.name),
    call: async (tool) =>
      text((await client.callTool({ name: tool, arguments: {} }, undefined, { timeout: TIMEOUT_MS })) as { content?: unknown }),
    setLevel: async (level) => void (await client.setLoggingLevel(level, { timeout: TIMEOUT_MS })),
    subscribe: async (uri) => void (await client.subscribeResource({ uri }, { timeout: TIMEOUT_MS })),
    deleteSession: () => transport.terminateSession(),
    close: () => client.close(),
  };
}

async function janusDriver(url: URL, version: ProtocolVersion, b: Balancer): Promise<LegacyDriver> {
  const notifications: Notice[] = [];
  const asked: string[] = [];
  const client = await connect(url, {
    protocolVersion: version,
    clientInfo: { name: 'janus-through-balancer', version: '1.0.0' },
    timeoutMs: TIMEOUT_MS,
    onElicit: (params) => {
      asked.push(params.message);
      return { action: 'accept', content: { name: 'Ada' } };
    },
    onNotification: (n) => void notifications.push({ method: n.method, params: n.params as Record<string, any> }),
  });
  assert.equal(client.era, 'legacy');
  assert.equal(client.protocolVersion, version);
  const sessionId = posted(b, (m) => m.method === 'initialize')?.sessionId;
  assert.ok(sessionId, 'initialize answered with a session');
  return {
    sessionId,
    deletesWithStreamOpen: false,
    notifications,
    asked,
    toolNames: async () => (await client.listAllTools()).map((t) => t.name),
    call: async (tool) => textOf(await client.callTool(tool)),
    setLevel: (level) => client.setLogLevel(level),
    subscribe: async (uri) => void (await client.request('resources/subscribe', { uri })),
    // Its close() ends the session: the GET stream first, then DELETE.
    deleteSession: () => client.close(),
    close: () => client.close(),
  };
}

/** A JSON-RPC ping of session `sid` sent straight to one instance: its HTTP status. */
async function pingStatus(instance: Instance, sid: string, version: string): Promise<number> {
  const res = await fetch(instance.served.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sid,
      'mcp-protocol-version': version,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  await res.arrayBuffer();
  return res.status;
}

/** The legacy scenario: every step passes through the balancer, so consecutive requests reach different instances. */
async function legacyScenario(d: Deployment, client: LegacyDriver, version: ProtocolVersion): Promise<void> {
  const b = d.balancer;
  const count = (method: string) => client.notifications.filter((n) => n.method === method).length;

  assert.deepEqual((await client.toolNames()).sort(), ['ask_on_post', 'ask_on_session', 'log_both', 'two_questions', 'whoami']);
  // Three calls in a row: one on each instance, all in the one session.
  const served = [await client.call('whoami'), await client.call('whoami'), await client.call('whoami')];
  assert.deepEqual([...served].sort(), LABELS, 'round robin: each call on another instance');

  // ctx.elicit: the request goes out on the call's POST stream; the answer is a new POST, to the next instance.
  assert.match(await client.call('ask_on_post'), /^[ABC] got Ada$/);
  assert.deepEqual(client.asked, ['Name on the POST stream?']);
  const askedOnPost = posted(b, callOf('ask_on_post'))!;
  const answeredOnPost = posted(b, (m) => m.method === undefined && m.result?.content?.name === 'Ada')!;
  assert.notEqual(answeredOnPost.instance, askedOnPost.instance, 'the answer reached another instance than the asking one');
  await until(() => answeredOnPost.status !== undefined, 'the reply to the posted answer');
  assert.equal(answeredOnPost.status, 202);

  // ctx.session.elicit: the request goes out on the GET stream, held by whichever instance got the GET.
  const get = await until(() => b.log.find((f) => f.method === 'GET' && f.status === 200), 'the session GET stream');
  assert.equal(get.sessionId, client.sessionId);
  const result = await client.call('ask_on_session');
  assert.match(result, /^[ABC] got Ada$/);
  assert.deepEqual(client.asked, ['Name on the POST stream?', 'Name on the GET stream?']);
  const askedOnSession = posted(b, callOf('ask_on_session'))!;
  const answers = b.log.filter(
    (f) => f.method === 'POST' && rpc(f).some((m) => m.method === undefined && m.result?.content?.name === 'Ada'),
  );
  assert.equal(answers.length, 2);
  assert.notEqual(answers[1]!.instance, askedOnSession.instance, 'the answer reached another instance than the asking one');
  assert.equal(result, `${LABELS[askedOnSession.instance]} got Ada`);

  // The level set on one instance holds on the others.
  await client.setLevel('warning');
  const setOn = posted(b, (m) => m.method === 'logging/setLevel')!;
  assert.equal(await client.call('log_both'), 'logged');
  const loggedOn = posted(b, callOf('log_both'))!;
  assert.notEqual(loggedOn.instance, setOn.instance);
  await until(() => count('notifications/message') > 0, 'the log notification');
  assert.deepEqual(
    client.notifications.filter((n) => n.method === 'notifications/message').map((n) => n.params?.data),
    ['loud'],
  );

  // Changes made on an instance that does not hold the GET stream reach it, each heard once:
  // each is the marker that the one before came only once (one publisher keeps its order).
  await client.subscribe(WATCHED);
  const elsewhere = d.instances[(get.instance + 1) % d.instances.length]!.served.server;
  elsewhere.resourceUpdated(WATCHED);
  await until(() => count('notifications/resources/updated') === 1, 'the resource update');
  elsewhere.tool('added', () => 'new');
  await until(() => count('notifications/tools/list_changed') === 1, 'the tools list change');
  elsewhere.resourceUpdated(WATCHED);
  await until(() => count('notifications/resources/updated') === 2, 'the second resource update');
  assert.equal(count('notifications/tools/list_changed'), 1);
  assert.deepEqual(
    client.notifications.filter((n) => n.method === 'notifications/resources/updated').map((n) => n.params),
    [{ uri: WATCHED }, { uri: WATCHED }],
  );

  await client.deleteSession();
  const deleted = b.log.filter((f) => f.method === 'DELETE');
  assert.deepEqual(
    deleted.map((f) => [f.sessionId, f.status]),
    [[client.sessionId, 200]],
  );
  // The instance holding the GET stream ends it when another instance ended the session.
  if (client.deletesWithStreamOpen) await until(() => get.completed, 'the GET stream to end');
  await client.close();
  for (const instance of d.instances) assert.equal(await pingStatus(instance, client.sessionId, version), 404);

  // One session all along (a client that met a 404 would have initialized again), spread over every instance.
  assert.equal(b.log.filter((f) => rpc(f).some((m) => m.method === 'initialize')).length, 1);
  assert.deepEqual(
    b.log.filter((f) => f.sessionId !== client.sessionId).map((f) => `${f.method} ${f.body}`),
    [],
    'every request belongs to the session',
  );
  const failed = b.log.filter((f) => f.status !== 200 && f.status !== 202 && f.method !== 'GET');
  assert.deepEqual(
    failed.map((f) => `${f.method} ${f.status} ${f.body}`),
    [],
  );
  assert.ok(
    b.hits.every((n) => n >= 5),
    `traffic spread over every instance: ${b.hits.join(', ')}`,
  );
}

const LEGACY: ProtocolVersion[] = ['2025-11-25', '2025-06-18'];

test('official SDK v1 client (2025-11-25) through a round-robin balancer: one session served by three instances on Redis', async () => {
  const d = await deploy();
  let client: LegacyDriver | undefined;
  try {
    client = await sdkV1Driver(d.balancer.url, '2025-11-25');
    await legacyScenario(d, client, '2025-11-25');
  } finally {
    await client?.close();
    await d.close();
  }
});

for (const version of LEGACY) {
  test(`official SDK v2 client at ${version} through a round-robin balancer: one session served by three instances on Redis`, async () => {
    const d = await deploy();
    let client: LegacyDriver | undefined;
    try {
      client = await sdkDriver(d.balancer.url, version);
      await legacyScenario(d, client, version);
    } finally {
      await client?.close();
      await d.close();
    }
  });

  test(`Janus client pinned to ${version} through a round-robin balancer: one session served by three instances on Redis`, async () => {
    const d = await deploy();
    let client: LegacyDriver | undefined;
    try {
      client = await janusDriver(d.balancer.url, version, d.balancer);
      await legacyScenario(d, client, version);
    } finally {
      await client?.close();
      await d.close();
    }
  });
}

/**
 * The balancer drops the session's GET stream (as a proxy's idle timeout does): the client
 * resumes it with Last-Event-ID on the next instance, which replays from the shared event
 * store what was sent meanwhile, then carries the later messages live.
 */
async function resumeScenario(d: Deployment, client: LegacyDriver): Promise<void> {
  const b = d.balancer;
  const logs = () => client.notifications.filter((n) => n.method === 'notifications/message').map((n) => n.params?.data);
  const first = await until(() => b.log.find((f) => f.method === 'GET' && f.status === 200), 'the session GET stream');
  // Every instance serves the session once, so each holds a handle to it.
  for (let i = 0; i < 3; i++) await client.call('whoami');
  const elsewhere = d.instances[(first.instance + 1) % d.instances.length]!.served.server.session(client.sessionId)!;
  elsewhere.log('info', 'one');
  await until(() => logs().length === 1, 'the first log message');
  b.cut(first);
  // Sent while the stream is down, or before its instance noticed: kept in Redis either way.
  elsewhere.log('info', 'two');
  const resumed = await until(() => b.log.find((f) => f.method === 'GET' && f !== first && f.status === 200), 'the resumed GET stream');
  assert.notEqual(resumed.instance, first.instance, 'resumed on another instance');
  assert.ok(resumed.lastEventId, 'resumed with Last-Event-ID');
  await until(() => logs().length === 2, 'the message sent while the stream was down');
  elsewhere.log('info', 'three');
  await until(() => logs().length === 3, 'the message sent after the resumption');
  assert.deepEqual(logs(), ['one', 'two', 'three']);
}

const drivers = [
  ['official SDK v2 client', sdkDriver],
  ['official SDK v1 client', sdkV1Driver],
  ['Janus client', janusDriver],
] as const;

for (const [name, driver] of drivers) {
  test(`${name} through a round-robin balancer: a dropped GET stream resumes on another instance with what was sent meanwhile`, async () => {
    const d = await deploy();
    let client: LegacyDriver | undefined;
    try {
      client = await driver(d.balancer.url, '2025-11-25', d.balancer);
      await resumeScenario(d, client);
    } finally {
      await client?.close();
      await d.close();
    }
  });
}

test('Janus client at 2026-07-28 through a round-robin balancer: a two-round input_required call completes though each retry lands on another instance', async () => {
  const d = await deploy();
  const answers: Record<string, string> = { 'First name?': 'Ada', 'Last name?': 'Lovelace' };
  const client = await connect(d.balancer.url, {
    protocolVersion: '2026-07-28',
    timeoutMs: TIMEOUT_MS,
    onElicit: (params) => ({ action: 'accept', content: { name: answers[params.message] ?? '?' } }),
  });
  try {
    assert.equal(client.era, 'modern');
    const result = await client.callTool('two_questions');
    assert.deepEqual(result.content, [{ type: 'text', text: 'Hello, Ada Lovelace!' }]);
    const rounds = d.balancer.log.filter((f) => rpc(f).some(callOf('two_questions')));
    assert.equal(rounds.length, 3);
    assert.deepEqual(
      rounds.map((f) => f.status),
      [200, 200, 200],
    );
    assert.deepEqual(
      rounds.map((f) => Object.keys(rpc(f)[0]!.params.inputResponses ?? {})),
      [[], ['first'], ['last']],
    );
    assert.deepEqual(new Set(rounds.map((f) => f.instance)).size, 3, 'each round on another instance');
    assert.equal(d.balancer.log.filter((f) => f.method !== 'POST').length, 0, 'the modern wire is POSTs only');
  } finally {
    await client.close();
    await d.close();
  }
});
