/**
 * The proxy over in-memory transports, each era on each side: calls forwarded, the upstream's
 * questions bridged (a handshake-era upstream's elicitation becomes an `input_required` round
 * for a 2026-07-28 client, and the same upstream call continues: it runs once; a stateless
 * upstream's round becomes real requests to a handshake-era client), progress and logs passed
 * on, cancellation forwarded, and the mirror kept live.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connect, type Client } from '../../src/client/index.js';
import { createProxy, type Proxy as JanusProxy } from '../../src/proxy/index.js';
import type { JsonRpcNotification } from '../../src/protocol/index.js';
import { createServer, type Server } from '../../src/server/index.js';
import { connectInMemory, createMemoryPair } from '../../src/testing/index.js';
import { deferred, until } from '../support/wait.js';
import { wireValidator } from '../support/wire-schema.js';
import type { RecordedMessage } from '../../src/testing/index.js';

/** Every message the proxy sent downstream validates against the schema of the client's revision. */
function assertTranscript(rev: string, messages: readonly RecordedMessage[]): void {
  const v = wireValidator();
  const asked = new Map<string | number, string>();
  for (const { from, message } of messages) {
    const m = message as { id?: string | number; method?: string };
    if (from === 'client' && m.method !== undefined && m.id !== undefined) asked.set(m.id, m.method);
  }
  for (const { from, message } of messages) {
    if (from === 'server') v.assertServerMessage(rev, message, { requestMethod: (id) => (id === undefined ? undefined : asked.get(id)) });
  }
}

type Era = 'legacy' | 'modern';
const PIN: Record<Era, '2025-06-18' | '2026-07-28'> = { legacy: '2025-06-18', modern: '2026-07-28' };

interface Upstream {
  server: Server;
  /** How often each tool's handler started. */
  runs: Map<string, number>;
  cancelled: Promise<void>;
  /** The upstream's blocking tool has started. */
  blocked: Promise<void>;
}

function upstreamServer(era: Era): Upstream {
  const server = createServer({ name: `upstream-${era}`, version: '1.2.3', eras: { legacy: era === 'legacy', modern: era === 'modern' } });
  const runs = new Map<string, number>();
  const count = (name: string) => runs.set(name, (runs.get(name) ?? 0) + 1);
  const { promise: cancelled, resolve: onCancelled } = deferred();
  const { promise: blocked, resolve: onBlocked } = deferred();
  server.tool(
    'add',
    { input: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } },
    (args) => String(Number(args.a) + Number(args.b)),
  );
  server.tool('steps', async (_args, ctx) => {
    ctx.log('info', 'stepping');
    for (let i = 1; i <= 3; i++) ctx.progress(i, 3, `step ${i}`);
    return 'stepped';
  });
  server.tool('ask_name', async (_args, ctx) => {
    count('ask_name');
    const answer = await ctx.elicit({
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    if (answer.action !== 'accept') return 'no name';
    const roots = await ctx.roots();
    return `hello ${String(answer.content?.name)} at ${roots[0]?.uri ?? 'nowhere'}`;
  });
  server.tool(
    'block',
    (_args, ctx) =>
      new Promise<string>((resolve) => {
        onBlocked();
        ctx.signal.addEventListener('abort', () => (onCancelled(), resolve('aborted')));
      }),
  );
  server.prompt(
    'greet',
    {
      arguments: [{ name: 'who', required: true }],
      complete: { who: ({ value }) => ['Grace', 'Gustav', 'Ada'].filter((n) => n.startsWith(value)) },
    },
    (args) => `Greet ${String(args.who)}`,
  );
  server.resource('memo://one', { name: 'one', mimeType: 'text/plain' }, 'first memo');
  server.resourceTemplate('note://{id}', { name: 'note', mimeType: 'text/plain' }, (_uri, { id }) => `note ${id}`);
  return { server, runs, cancelled, blocked };
}

async function proxied(upEra: Era, downEra: Era, onWire?: (n: JsonRpcNotification) => void) {
  const up = upstreamServer(upEra);
  const [clientSide, serverSide] = createMemoryPair();
  await up.server.connect(serverSide);
  const proxy = await createProxy(clientSide, { connect: { protocolVersion: PIN[upEra] } });
  const asked: string[] = [];
  const down = await connectInMemory(proxy.server, {
    protocolVersion: PIN[downEra],
    onElicit: (params) => {
      asked.push(params.message);
      return { action: 'accept', content: { name: 'Ada' } };
    },
    onRoots: () => [{ uri: 'file:///work', name: 'work' }],
    ...(onWire ? { onNotification: onWire } : {}),
  });
  return { up, proxy, client: down.client, recorder: down.recorder, asked, close: async () => (await down.close(), await proxy.close()) };
}

const text = (r: { content: unknown }) => (r.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('');

for (const upEra of ['legacy', 'modern'] as const) {
  for (const downEra of ['legacy', 'modern'] as const) {
    const name = `${upEra} upstream → ${downEra} client`;

    test(`proxy (${name}): lists mirrored, calls, prompts, reads forwarded, identity taken from the upstream`, async () => {
      const p = await proxied(upEra, downEra);
      try {
        const tools = await p.client.listAllTools();
        assert.deepEqual(tools.map((t) => t.name).sort(), ['add', 'ask_name', 'block', 'steps']);
        const add = tools.find((t) => t.name === 'add')!;
        assert.deepEqual((add.inputSchema as { required?: string[] }).required, ['a', 'b']);
        assert.equal(text(await p.client.callTool('add', { a: 19, b: 23 })), '42');
        assert.equal(p.client.serverInfo?.name, `upstream-${upEra}`);
        assert.equal(p.client.serverInfo?.version, '1.2.3');
        const prompt = await p.client.getPrompt('greet', { who: 'Grace' });
        assert.match(JSON.stringify(prompt.messages), /Greet Grace/);
        const read = await p.client.readResource('memo://one');
        assert.equal((read.contents[0] as { text?: string }).text, 'first memo');
      } finally {
        await p.close();
      }
    });

    test(`proxy (${name}): an elicitation and a roots request answered by the downstream client; the upstream tool runs once`, async () => {
      const p = await proxied(upEra, downEra);
      try {
        const result = await p.client.callTool('ask_name', {});
        assert.equal(text(result), 'hello Ada at file:///work');
        assert.deepEqual(p.asked, ['Your name?']);
        // A modern upstream replays its own handler per round; a legacy one runs it once. Through
        // the proxy neither runs more than it would for a direct client.
        assert.equal(p.up.runs.get('ask_name'), upEra === 'legacy' ? 1 : 3);
        assertTranscript(PIN[downEra], p.recorder.messages);
        if (downEra === 'modern') {
          const calls = p.recorder.messages.filter(
            (m) => m.from === 'client' && (m.message as { method?: string }).method === 'tools/call',
          );
          assert.equal(calls.length, 3, 'the first call and one retry per round');
        }
      } finally {
        await p.close();
      }
    });

    test(`proxy (${name}): templates and completions forwarded; a resource subscription carried upstream and its updates back`, async () => {
      const p = await proxied(upEra, downEra);
      const stop = new AbortController();
      try {
        const { resourceTemplates } = await p.client.listResourceTemplates();
        assert.deepEqual(
          resourceTemplates.map((t) => t.uriTemplate),
          ['note://{id}'],
        );
        assert.equal(((await p.client.readResource('note://7')).contents[0] as { text?: string }).text, 'note 7');
        const completion = await p.client.complete({ type: 'ref/prompt', name: 'greet' }, { name: 'who', value: 'G' });
        assert.deepEqual(completion.values, ['Grace', 'Gustav']);
        const updates: string[] = [];
        const acknowledged = deferred();
        const listening = (async () => {
          const stream = p.client.listen({ resourceSubscriptions: ['memo://one'] }, { signal: stop.signal });
          acknowledged.resolve();
          for await (const n of stream) if (n.method === 'notifications/resources/updated') updates.push(String(n.params?.uri));
        })();
        await acknowledged.promise;
        // The upstream learns of the subscription through the proxy; until then an update reaches no one.
        await until(() => {
          p.up.server.resourceUpdated('memo://one');
          return updates.includes('memo://one');
        }, 'the upstream resource update downstream');
        stop.abort();
        await listening;
      } finally {
        stop.abort();
        await p.close();
      }
    });

    test(`proxy (${name}): progress and log messages reach the downstream call`, async () => {
      const logs: unknown[] = [];
      const p = await proxied(upEra, downEra, (n) => n.method === 'notifications/message' && logs.push(n.params?.data));
      try {
        await p.client.setLogLevel('debug');
        const seen: string[] = [];
        const r = await p.client.callTool('steps', {}, { onProgress: (x) => seen.push(`${x.progress}/${x.total} ${x.message}`) });
        assert.equal(text(r), 'stepped');
        assert.deepEqual(seen, ['1/3 step 1', '2/3 step 2', '3/3 step 3']);
        await until(() => logs.includes('stepping'), 'the upstream log message downstream');
      } finally {
        await p.close();
      }
    });

    test(`proxy (${name}): cancelling the downstream call cancels the upstream one`, async () => {
      const p = await proxied(upEra, downEra);
      try {
        const stop = new AbortController();
        const call = p.client.callTool('block', {}, { signal: stop.signal });
        await p.up.blocked;
        stop.abort();
        await assert.rejects(call, { code: 'ABORTED' });
        await p.up.cancelled;
      } finally {
        await p.close();
      }
    });
  }
}

test('proxy: a requestState of a proxied call is accepted once; presenting it again is refused with -32602', async () => {
  const p = await proxied('legacy', 'modern');
  try {
    assert.equal(text(await p.client.callTool('ask_name', {})), 'hello Ada at file:///work');
    const rounds = p.recorder.messages
      .map((m) => m.message as { result?: { resultType?: string; requestState?: string; inputRequests?: object } })
      .filter((m) => m.result?.resultType === 'input_required');
    assert.equal(rounds.length, 2, 'one round for the elicitation, one for roots');
    const used = rounds[0]!.result!;
    const key = Object.keys(used.inputRequests!)[0]!;
    await assert.rejects(
      p.client.request('tools/call', {
        name: 'ask_name',
        arguments: {},
        requestState: used.requestState,
        inputResponses: { [key]: { action: 'accept', content: { name: 'Eve' } } },
      }),
      { code: -32602 },
    );
    assert.equal(p.up.runs.get('ask_name'), 1, 'the refused retry reached nothing upstream');
  } finally {
    await p.close();
  }
});

test('proxy: the mirror follows the upstream live; clients of both eras hear of it', async () => {
  const up = upstreamServer('legacy');
  const [clientSide, serverSide] = createMemoryPair();
  await up.server.connect(serverSide);
  const proxy: JanusProxy = await createProxy(clientSide, { hide: { tools: (n) => n === 'block' } });
  const legacyChanges: string[] = [];
  const legacy = await connectInMemory(proxy.server, {
    protocolVersion: '2025-06-18',
    onNotification: (n) => void legacyChanges.push(n.method),
  });
  const modern = await connectInMemory(proxy.server, { protocolVersion: '2026-07-28' });
  const stop = new AbortController();
  const modernChanges: string[] = [];
  const listening = (async () => {
    for await (const n of modern.client.listen({ toolsListChanged: true }, { signal: stop.signal })) modernChanges.push(n.method);
  })();
  const names = async (c: Client) => (await c.listAllTools()).map((t) => t.name).sort();
  try {
    assert.deepEqual(await names(legacy.client), ['add', 'ask_name', 'steps']);
    const added = up.server.tool('late', () => 'late answer');
    await until(async () => (await names(modern.client)).includes('late'), 'the added tool downstream');
    await until(() => legacyChanges.includes('notifications/tools/list_changed'), 'list_changed on the legacy session');
    await until(() => modernChanges.includes('notifications/tools/list_changed'), 'list_changed on the listen stream');
    assert.equal(text(await legacy.client.callTool('late', {})), 'late answer');
    added.remove();
    await until(async () => !(await names(legacy.client)).includes('late'), 'the removed tool gone downstream');
    // Hidden tools are neither listed nor callable.
    await assert.rejects(legacy.client.callTool('block', {}), { code: -32602 });
  } finally {
    stop.abort();
    await listening;
    await legacy.close();
    await modern.close();
    await proxy.close();
  }
});

test("proxy: a connected Client as the upstream, and tools of the proxy's own next to the mirrored ones", async () => {
  const up = upstreamServer('modern');
  const [clientSide, serverSide] = createMemoryPair();
  await up.server.connect(serverSide);
  const upstreamClient = await connect(clientSide, {});
  const proxy = await createProxy(upstreamClient, { name: 'renamed', version: '9.9.9' });
  proxy.server.tool('local', () => 'mine');
  const down = await connectInMemory(proxy.server, { protocolVersion: '2025-11-25' });
  try {
    assert.equal(proxy.upstream, upstreamClient);
    assert.equal(down.client.serverInfo?.name, 'renamed');
    assert.equal(text(await down.client.callTool('local', {})), 'mine');
    assert.equal(text(await down.client.callTool('add', { a: 2, b: 3 })), '5');
  } finally {
    await down.close();
    await proxy.close();
  }
});

test('createProxy: roots must be file:// roots, said before anything is started', async () => {
  const [clientSide] = createMemoryPair();
  await assert.rejects(createProxy(clientSide, { roots: [{ uri: '/home/me/project' }] }), {
    name: 'TypeError',
    message: 'createProxy: options.roots is a list of roots, each { uri: "file://…", name? }',
  });
});
