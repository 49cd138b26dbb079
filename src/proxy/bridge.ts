/**
 * Calls from downstream clients forwarded upstream, and the upstream's questions, logs and
 * progress carried back to the downstream call they belong to, across eras:
 *
 * - a handshake-era downstream client is asked with real requests (`ctx.elicit`, `ctx.sample`,
 *   `ctx.roots`), whatever the upstream's era;
 * - a 2026-07-28 downstream client's tool call is a `Continuation`: the upstream's questions
 *   end the downstream request with an `input_required` round, and the retry's answers let the
 *   same upstream call go on (continuation.ts), in this instance or, when the retry reached
 *   another instance of the proxy's cluster, relayed from there (relays.ts).
 */
import { randomUUID } from 'node:crypto';
import type { ConnectOptions } from '../client/index.js';
import { ErrorCode, McpError } from '../errors/index.js';
import type {
  CallToolResult,
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  JsonRpcNotification,
  LoggingLevel,
  Root,
} from '../protocol/index.js';
import type { PromptHandler, RequestContext, ResourceReader, Server, TemplateReader, ToolHandler } from '../server/index.js';
import { CONTINUATION_PREFIX, CONTINUATION_TTL_MS, type Carrier, Continuation, carrierOf } from './continuation.js';
import type { Forwarders, Mirror } from './mirror.js';
import type { ContinuationRelay } from './relay.js';
import { type RoundOutcome, Relays, stateError } from './relays.js';
import { type Asker, InFlight, type Question } from './scope.js';
import type { Upstream } from './upstream.js';

/** ctx.state keys between the tools/call middleware and the tool handlers. */
const RESUME = 'janus-mcp/proxy.resume';
const ROUND = 'janus-mcp/proxy.round';
/** The call's arguments as sent (before validation fills defaults): what its retries must repeat. */
const ARGUMENTS = 'janus-mcp/proxy.arguments';

/** A retry's answers, and the call they go to: held here, or by the instance `owner` of the cluster. */
type Resume = { responses: Record<string, unknown> } & (
  | { continuation: Continuation; owner?: undefined }
  | { owner: string; state: string; argumentsJson: string }
);

/** The instance id a proxy `requestState` carries (`janus-proxy.<instance>.<round>`), if it is well formed. */
function ownerOf(state: string): string | undefined {
  const match = /^janus-proxy\.([0-9a-f-]{36})\.[0-9a-f-]{36}$/.exec(state);
  return match?.[1];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Asks a downstream request's client, with the mechanics of its era. */
function askDownstream(ctx: RequestContext, ...[method, params]: Question): Promise<object> {
  switch (method) {
    case 'elicitation/create':
      if (params.mode === 'url') return ctx.elicitUrl(params);
      return ctx.elicit({
        message: String(params.message ?? ''),
        requestedSchema: params.requestedSchema ?? {},
        ...(isObject(params._meta) ? { _meta: params._meta } : {}),
      });
    case 'sampling/createMessage':
      return ctx.sample(params);
    case 'roots/list':
      return ctx.roots().then((roots) => ({ roots }));
  }
}

/** The asker of a call that asks its downstream client directly. */
function direct(ctx: RequestContext): Asker {
  return {
    ask: (...question) => askDownstream(ctx, ...question),
    declares: (capability) => Boolean(ctx.client.capabilities[capability]),
    log: (level, data, logger) => ctx.log(level, data, logger),
  };
}

/** How a {@link Bridge} keeps 2026-07-28 rounds. */
export interface BridgeOptions {
  /** The proxy's own roots: the answer to a `roots/list` asked while no downstream call is in flight. */
  roots?: readonly Root[];
  /** How long a round waits for its retry (default `CONTINUATION_TTL_MS`). */
  continuationTtlMs?: number;
  /** The instances of this proxy's cluster, for retries that reach an instance other than the call's. */
  relay?: ContinuationRelay;
  reportError?: (e: unknown) => void;
}

/** Why a `requestState` of this instance no longer names a call. */
type Forgotten = 'expired' | 'used';
/** States remembered as forgotten, for a precise error (the oldest are dropped first). */
const REMEMBERED = 4096;

export class Bridge implements Forwarders {
  private readonly inFlight = new InFlight();
  private readonly continuations = new Map<string, Continuation>();
  private readonly forgotten = new Map<string, Forgotten>();
  /** The id this instance's states carry and its relay listens under. */
  readonly instance = randomUUID();
  private readonly roots: readonly Root[];
  private readonly ttlMs: number;
  private readonly relays: Relays | undefined;
  mirror: Mirror | undefined;

  constructor(
    private readonly upstream: () => Upstream,
    options: BridgeOptions = {},
  ) {
    this.roots = options.roots ?? [];
    this.ttlMs = options.continuationTtlMs ?? CONTINUATION_TTL_MS;
    const relay = options.relay;
    this.relays =
      relay &&
      new Relays(relay, this.instance, {
        claim: (state, tool, args) => this.claim(state, tool, args),
        step: (c, carrier, responses) => this.step(c, carrier, responses),
        reportError: options.reportError ?? ((e) => console.error('[janus-mcp proxy]', e)),
      });
  }

  /** Starts taking the retries other instances relay here. */
  async start(): Promise<void> {
    await this.relays?.start();
  }

  async close(): Promise<void> {
    await this.relays?.close();
  }

  /** The upstream client's handlers: each question goes to the downstream call it belongs to. */
  handlers(): Pick<ConnectOptions, 'onElicit' | 'onSample' | 'onRoots' | 'onNotification'> {
    return {
      onElicit: (params: ElicitParams) => this.ask('elicitation/create', params) as Promise<ElicitResult>,
      onSample: (params: CreateMessageParams) => this.ask('sampling/createMessage', params) as Promise<CreateMessageResult>,
      onRoots: async () => {
        // Asked with no downstream call in flight (many servers ask at their start), or during the
        // call of a client that has no roots: the proxy's own roots answer.
        const asker = this.inFlight.current();
        if (asker === undefined || !asker.declares('roots')) return this.roots.map((r) => ({ ...r }));
        return ((await asker.ask('roots/list', {})) as { roots: Root[] }).roots;
      },
      onNotification: (n: JsonRpcNotification) => {
        if (n.method !== 'notifications/message' || !isObject(n.params)) return;
        const { level, data, logger } = n.params;
        this.inFlight.current()?.log(level as LoggingLevel, data, typeof logger === 'string' ? logger : undefined);
      },
    };
  }

  private ask(...question: Question): Promise<object> {
    const asker = this.inFlight.current();
    if (!asker) return Promise.reject(new McpError(ErrorCode.InternalError, `${question[0]}: no downstream call in flight to ask`));
    return asker.ask(...question);
  }

  tool(name: string): ToolHandler {
    return ((args: Record<string, unknown>, ctx: RequestContext) =>
      ctx.era === 'modern' ? this.continued(name, args, ctx) : this.callUpstream(name, args, ctx.signal, direct(ctx), ctx)) as never;
  }

  private callUpstream(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    asker: Asker,
    progress: { progress(p: number, total?: number, message?: string): void },
  ): Promise<CallToolResult> {
    return this.inFlight.run(asker, () =>
      this.upstream().use(`tools/call ${name}`, (client) =>
        client.callTool(name, args, { signal, onProgress: (p) => progress.progress(p.progress, p.total, p.message) }),
      ),
    );
  }

  /** A 2026-07-28 downstream tool call: a new continuation, or the retry of one (its answers in ctx.state). */
  private async continued(name: string, args: Record<string, unknown>, ctx: RequestContext): Promise<CallToolResult> {
    const resume = ctx.state[RESUME] as Resume | undefined;
    let outcome: RoundOutcome;
    if (resume?.owner !== undefined) {
      // Another instance holds the call: the answers go there, the outcome comes back.
      outcome = await this.relays!.retry(resume.owner, {
        state: resume.state,
        tool: name,
        args: resume.argumentsJson,
        responses: resume.responses,
        carrier: carrierOf(ctx),
      });
    } else {
      let continuation = resume?.continuation;
      if (!continuation) {
        const c = new Continuation(
          name,
          JSON.stringify(ctx.state[ARGUMENTS] ?? {}),
          (gone) => {
            if (gone.roundState === undefined || !this.continuations.delete(gone.roundState)) return;
            this.remember(gone.roundState, 'expired');
          },
          this.ttlMs,
        );
        c.start((signal, asker) => this.callUpstream(name, args, signal, asker, c));
        continuation = c;
      }
      outcome = await this.step(continuation, carrierOf(ctx), resume?.responses);
    }
    if ('result' in outcome) return outcome.result;
    ctx.state[ROUND] = { resultType: 'input_required', inputRequests: outcome.inputRequests, requestState: outcome.requestState };
    // Replaced by the round in the tools/call middleware; an error result skips output validation.
    return { content: [], isError: true };
  }

  /** One downstream request's part of a continued call: the answers go in, the result or the next round comes out. */
  private async step(continuation: Continuation, carrier: Carrier, responses: Record<string, unknown> | undefined): Promise<RoundOutcome> {
    continuation.attach(carrier);
    let waiting = false;
    try {
      if (responses) continuation.answer(responses);
      const step = await continuation.next();
      if ('result' in step) return step;
      waiting = true;
      const requestState = continuation.newRound(`${CONTINUATION_PREFIX}${this.instance}.${randomUUID()}`);
      this.continuations.set(requestState, continuation);
      return { inputRequests: step.inputRequests, requestState };
    } finally {
      continuation.detach(waiting);
    }
  }

  /**
   * The continuation a retry's `requestState` names, taken out of the table (a state is
   * accepted once), after checking that the retry repeats the call it was issued for.
   */
  private claim(state: string, tool: unknown, argumentsJson: string): Continuation {
    const continuation = this.continuations.get(state);
    if (!continuation) throw this.notHeld(state);
    // mrtr.mdx §Client Requirements: the retry repeats the original request; its state serves no other.
    if (continuation.tool !== tool || continuation.argumentsJson !== argumentsJson) {
      throw new McpError(
        ErrorCode.InvalidParams,
        'Invalid params: requestState was issued for another tool call (name or arguments differ)',
      );
    }
    this.continuations.delete(state);
    this.remember(state, 'used');
    return continuation;
  }

  private remember(state: string, why: Forgotten): void {
    this.forgotten.set(state, why);
    if (this.forgotten.size > REMEMBERED) this.forgotten.delete(this.forgotten.keys().next().value!);
  }

  /** The refusal of a state this instance holds no call for, saying why as far as it knows. */
  private notHeld(state: string): McpError {
    const why = this.forgotten.get(state);
    if (why === 'expired') {
      return stateError(
        'expired',
        `requestState has expired: no retry answered the round within ${this.ttlMs / 1000} s, and the upstream call was cancelled. Call the tool again without requestState to start over`,
      );
    }
    if (why === 'used') {
      return stateError(
        'used',
        "requestState was already used (each round's requestState is accepted once): retry with the requestState of the latest round, or call the tool again without requestState to start over",
      );
    }
    const owner = ownerOf(state);
    const elsewhere =
      owner !== undefined && owner !== this.instance && this.relays === undefined
        ? ' It was issued by another proxy instance: without a cluster shared by the instances, a retry must reach the instance that started the call.'
        : '';
    return stateError(
      'unknown',
      `requestState names no call waiting in this proxy (expired, already used, or never issued).${elsewhere} Call the tool again without requestState to start over`,
    );
  }

  prompt(name: string): PromptHandler {
    return ((args: Record<string, string | undefined>, ctx: RequestContext) =>
      this.inFlight.run(direct(ctx), () =>
        this.upstream().use(`prompts/get ${name}`, (client) =>
          client.getPrompt(name, Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined)) as Record<string, string>, {
            signal: ctx.signal,
          }),
        ),
      )) as never;
  }

  resource(uri: string): ResourceReader {
    return (_uri, ctx) => this.read(uri, ctx);
  }

  template(_uriTemplate: string): TemplateReader {
    return (uri, _variables, ctx) => this.read(uri, ctx);
  }

  private read(uri: string, ctx: RequestContext) {
    return this.inFlight.run(direct(ctx), () =>
      this.upstream().use(`resources/read ${uri}`, (client) => client.readResource(uri, { signal: ctx.signal })),
    );
  }

  /** The middleware that answers rounds and retries of continued calls, and forwards completions and unlisted reads. */
  install(server: Server): void {
    server.use('tools/call', async (ctx, next) => {
      const state = ctx.params.requestState;
      if (ctx.era === 'modern' && typeof state === 'string' && state.startsWith(CONTINUATION_PREFIX)) {
        const { requestState: _state, inputResponses, ...rest } = ctx.params as Record<string, unknown>;
        const responses = isObject(inputResponses) ? inputResponses : {};
        const argumentsJson = JSON.stringify(ctx.params.arguments ?? {});
        const owner = ownerOf(state);
        ctx.state[RESUME] = (
          owner !== undefined && owner !== this.instance && this.relays !== undefined
            ? { owner, state, argumentsJson, responses }
            : { continuation: this.claim(state, ctx.params.name, argumentsJson), responses }
        ) satisfies Resume;
        ctx.params = rest as typeof ctx.params;
      }
      if (ctx.era === 'modern') ctx.state[ARGUMENTS] = ctx.params.arguments;
      const result = await next();
      return (ctx.state[ROUND] as typeof result | undefined) ?? result;
    });
    server.use('completion/complete', async (ctx, next) => {
      const ref = ctx.params.ref as { type?: string; name?: string; uri?: string } | undefined;
      const mirrored =
        (ref?.type === 'ref/prompt' && typeof ref.name === 'string' && this.mirror?.has('prompts', ref.name)) ||
        (ref?.type === 'ref/resource' && typeof ref.uri === 'string' && this.mirror?.has('templates', ref.uri));
      if (!mirrored || !ref) return next();
      const argument = ctx.params.argument as { name: string; value: string };
      const context = isObject(ctx.params.context) && isObject(ctx.params.context.arguments) ? ctx.params.context.arguments : undefined;
      const completion = await this.upstream().use('completion/complete', (client) =>
        client.complete(ref as never, argument, context as Record<string, string> | undefined),
      );
      return { completion } as Awaited<ReturnType<typeof next>>;
    });
    // A URI the upstream serves without listing it (a template's, say) is read upstream too.
    server.use('resources/read', async (ctx, next) => {
      try {
        return await next();
      } catch (e) {
        const uri = ctx.params.uri;
        const notFound = e instanceof McpError && (e.code === ErrorCode.ResourceNotFound || e.code === ErrorCode.InvalidParams);
        if (!notFound || typeof uri !== 'string' || this.mirror?.hidden(uri)) throw e;
        return this.upstream().use(`resources/read ${uri}`, (client) => client.readResource(uri, { signal: ctx.signal }));
      }
    });
  }
}
