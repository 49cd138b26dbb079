/**
 * The upstream of the round tests: a handshake-era server on Streamable HTTP (127.0.0.1) whose
 * tools ask the caller's name with real elicitation requests, and which counts what each call
 * did: started (a side effect a replay would repeat), completed, failed (its question went
 * unanswered: the proxy closed the call's stream), or cancelled (its signal aborted),
 * in all and per call (a call's `tag` argument names it). `ask_and_report` sends progress and
 * a log message once answered.
 */
import { createServer, type RequestContext } from '../../src/server/index.js';
import { type HttpServerHandle, serveHttp } from '../../src/transports/http/index.js';
import { MODERN, type Msg } from '../support/common.js';
import type { HttpPeer } from '../http-e2e/support.js';

const NAME = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } as const;

type Counts = { started: number; completed: number; failed: number; cancelled: number };

export interface ElicitingUpstream {
  readonly url: URL;
  /** Calls started, completed, failed and cancelled, over every tool. */
  readonly started: number;
  readonly completed: number;
  readonly failed: number;
  readonly cancelled: number;
  /** What became of the calls tagged `tag` (each state counted once per call). */
  calls(tag: string): Counts;
  close(): Promise<void>;
}

export async function startElicitingUpstream(): Promise<ElicitingUpstream> {
  const server = createServer({ name: 'eliciting-upstream', version: '1.0.0', eras: { legacy: true, modern: false } });
  const counts = { started: 0, completed: 0, failed: 0, cancelled: 0 };
  const tagged = new Map<string, Counts>();
  const count = (tag: unknown, what: keyof Counts) => {
    counts[what]++;
    if (typeof tag !== 'string') return;
    const c = tagged.get(tag) ?? { started: 0, completed: 0, failed: 0, cancelled: 0 };
    c[what]++;
    tagged.set(tag, c);
  };
  const ask = async (message: string, ctx: RequestContext) => {
    const answer = await ctx.elicit({ message, requestedSchema: NAME });
    return answer.action === 'accept' ? String(answer.content?.name) : `(${answer.action})`;
  };
  const counted = (work: (ctx: RequestContext) => Promise<string>) => async (args: { tag?: string }, ctx: RequestContext) => {
    count(args.tag, 'started');
    ctx.signal.addEventListener('abort', () => count(args.tag, 'cancelled'), { once: true });
    try {
      const text = await work(ctx);
      count(args.tag, 'completed');
      return text;
    } catch (e) {
      count(args.tag, 'failed');
      throw e;
    }
  };
  const input = { type: 'object', properties: { tag: { type: 'string' } } } as const;
  server.tool(
    'ask_name',
    { input },
    counted(async (ctx) => `hello ${await ask('Your name?', ctx)}`),
  );
  server.tool(
    'two_names',
    { input },
    counted(async (ctx) => `hello ${await ask('First name?', ctx)} ${await ask('Last name?', ctx)}`),
  );
  server.tool(
    'ask_and_report',
    { input },
    counted(async (ctx) => {
      const name = await ask('Your name?', ctx);
      // After the answer: what the retry's request must carry back to its client.
      ctx.progress(1, 2, `asked ${name}`);
      ctx.log('info', { got: name }, 'eliciting-upstream');
      return `hello ${name}`;
    }),
  );
  const http: HttpServerHandle = await serveHttp(server, { host: '127.0.0.1', port: 0 });
  return {
    url: http.url,
    get started() {
      return counts.started;
    },
    get completed() {
      return counts.completed;
    },
    get failed() {
      return counts.failed;
    },
    get cancelled() {
      return counts.cancelled;
    },
    calls: (tag) => ({ ...(tagged.get(tag) ?? { started: 0, completed: 0, failed: 0, cancelled: 0 }) }),
    async close() {
      await http.close();
      server.close();
    },
  };
}

/** A 2026-07-28 client's capabilities for these rounds. */
export const CAPS = { elicitation: { form: {} } };

/** A 2026-07-28 `tools/call` over raw HTTP: the one JSON-RPC message that answers it. */
export async function callRaw(peer: HttpPeer, tool: string, extra: Record<string, unknown> = {}): Promise<Msg> {
  const o = await peer.modern('tools/call', { name: tool, arguments: {}, ...extra }, { caps: CAPS });
  const message = o.messages.at(-1);
  if (message === undefined) throw new Error(`no JSON-RPC message in the answer (HTTP ${o.status})`);
  return { ...message, status: o.status };
}

/** The answers to a round's questions, one name per question in order. */
export function answers(inputRequests: Record<string, unknown>, ...names: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.keys(inputRequests).map((key, i) => [key, { action: 'accept', content: { name: names[i] } }]));
}

export { MODERN };
