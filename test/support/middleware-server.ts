/**
 * The server the middleware end-to-end tests drive over a real stdio child and real HTTP
 * (test/server/middleware-e2e.test.ts). What its middleware does shows on the wire: in
 * results, in errors, and in the log the `seen` tool returns, so a test needs nothing from
 * inside the process. Which middleware acts is chosen by the tool name (`tools/call`) or the
 * request id (`subscriptions/listen`).
 */
import { createServer, type Middleware, type MiddlewareContext, type Server } from '../../src/server/index.js';
import { ErrorCode, McpError } from '../../src/errors/index.js';
import type { CallToolResult } from '../../src/protocol/types.js';

/** The message a middleware throws for the tool `explode`: masked on the wire, reported in full. */
export const SECRET = 'vault at db-7.internal is down';
/** A client with this name has its `notifications/initialized` dropped by middleware. */
export const DROP_INITIALIZED = 'drop-initialized';

const text = (t: string) => ({ type: 'text' as const, text: t });
const toolName = (ctx: MiddlewareContext) => (ctx.method === 'tools/call' ? ctx.params.name : undefined);
const traceOf = (ctx: { readonly state: Record<string, unknown> }) => (ctx.state.trace ??= []) as string[];

/** Brackets the rest of the chain with markers in `ctx.state.trace`, for the tool `order` only. */
const mark =
  (name: string): Middleware =>
  async (ctx, next) => {
    if (toolName(ctx) !== 'order') return next();
    traceOf(ctx).push(`${name}>`);
    const r = await next();
    traceOf(ctx).push(`<${name}`);
    return r;
  };

/** What a middleware sees of its request, as JSON. */
function snapshot(ctx: MiddlewareContext): Record<string, unknown> {
  const { kind, method, params, id, era, protocolVersion, client, meta, sessionId, transport, principal } = ctx;
  return {
    kind,
    method,
    params,
    id,
    era,
    protocolVersion: protocolVersion ?? null,
    client,
    meta: meta ?? null,
    sessionId: sessionId ?? null,
    transport,
    principal: principal ?? null,
    signal: ctx.signal instanceof AbortSignal && !ctx.signal.aborted,
  };
}

export function createMiddlewareServer(): Server {
  const server = createServer({ name: 'middleware-e2e', version: '1.0.0' });
  const log: string[] = [];

  // Every message, and how its request ended: "<era> <kind> <method>[ <outcome>]".
  server.use(async (ctx, next) => {
    if (toolName(ctx) === 'seen') return next();
    const line = `${ctx.era} ${ctx.kind} ${ctx.method}`;
    log.push(line);
    if (ctx.method === 'notifications/initialized' && ctx.client.info?.name === DROP_INITIALIZED) return undefined;
    try {
      const r = await next();
      if (ctx.method === 'subscriptions/listen') log.push(`${line} ended`);
      return r;
    } catch (e) {
      log.push(`${line} failed ${e instanceof McpError ? e.code : 'unexpectedly'}`);
      throw e;
    }
  });
  // The outermost marker also shows the whole trace in the result.
  server.use(async (ctx, next) => {
    if (toolName(ctx) !== 'order') return next();
    traceOf(ctx).push('g1>');
    const r = (await next()) as CallToolResult;
    traceOf(ctx).push('<g1');
    return { ...r, content: [...r.content, text(traceOf(ctx).join(' '))] };
  });
  server.use('tools/call', mark('call1'));
  server.use(mark('g2'));
  server.use('tools/call', mark('call2'));

  server.use('tools/call', async (ctx, next) => {
    const args = ctx.params.arguments ?? {};
    switch (ctx.params.name) {
      case 'short_circuit': // no such tool: the middleware answers
        return {
          content: [text('from middleware'), { type: 'resource_link', uri: 'test://doc', name: 'doc' }],
          structuredContent: { answer: 42 },
        };
      case 'forbidden':
        throw new McpError(ErrorCode.InvalidRequest, 'Sign in first', { need: 'login' });
      case 'explode':
        throw new Error(SECRET);
      case 'forgot':
        return undefined;
      case 'context':
        return { content: [text(JSON.stringify(snapshot(ctx)))] };
      case 'whoami':
        ctx.state.user = 'ada';
        return next();
      case 'greet':
        if (args.alias !== undefined) ctx.params = { ...ctx.params, arguments: { name: args.alias } };
        return next();
      case 'twice':
        await next();
        return next();
      case 'quiet':
        await next();
        return undefined;
      case 'neutral':
        return { content: [text(JSON.stringify(await next()))] };
      case 'ask': {
        const r = await next();
        log.push(`ask next ${'resultType' in r ? String(r.resultType) : 'result'}`);
        return r;
      }
      default:
        return next();
    }
  });
  server.use('resources/read', (_ctx, next) => next());
  server.use('subscriptions/listen', (ctx, next) => {
    if (ctx.id === 'refused') throw new McpError(ErrorCode.InvalidRequest, 'Listening needs a subscription plan');
    return next();
  });

  server.tool('order', (_args, ctx) => {
    traceOf(ctx).push('handler');
    return 'done';
  });
  server.tool('whoami', (_args, ctx) => `user ${String(ctx.state.user)}`);
  const input = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
  server.tool('greet', { input }, ({ name }) => `hello ${String(name)}`);
  server.tool('twice', (_args, ctx) => {
    const runs = ((ctx.state.runs as number | undefined) ?? 0) + 1;
    ctx.state.runs = runs;
    return `run ${runs}`;
  });
  server.tool('quiet', () => 'quiet result');
  server.tool('neutral', () => ({
    content: [text('see'), { type: 'resource_link', uri: 'test://doc', name: 'doc' }],
    structuredContent: { n: 1 },
  }));
  server.tool('slow', async (_args, ctx) => {
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    log.push('slow aborted');
    return 'aborted';
  });
  server.tool('ask', async (_args, ctx) => {
    const requestedSchema = { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] };
    const answer = await ctx.elicit({ message: 'Your name?', requestedSchema });
    return `Hello, ${String(answer.content?.name)}`;
  });
  server.tool('seen', () => JSON.stringify(log.splice(0)));
  server.resource('test://cached', { name: 'cached', cache: { ttlMs: 60_000, scope: 'public' } }, 'cached text');
  return server;
}
