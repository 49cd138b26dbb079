/**
 * A proxied tool call kept alive across a 2026-07-28 downstream client's `input_required`
 * rounds (basic/patterns/mrtr.mdx). The upstream call runs once: when the upstream asks
 * something (a handshake-era server's elicitation/sampling/roots request, or a stateless
 * upstream's own round that the upstream client turns into handler calls), the downstream
 * request ends with an `input_required` round whose `requestState` is this continuation's
 * id; the retry brings the answers, which resolve the upstream's pending questions, and the
 * same upstream call goes on. Replaying would repeat the upstream tool's side effects.
 * Held in the memory of the instance that started it; a retry that reaches another instance
 * of a cluster is relayed here (bridge.ts, relay.ts).
 */
import { ErrorCode, McpError } from '../errors/index.js';
import type { CallToolResult, ClientCapabilities, InputRequest, LoggingLevel } from '../protocol/index.js';
import type { RequestContext } from '../server/index.js';
import type { AskMethod, Asker, Question } from './scope.js';

/** `requestState` values of the proxy's own rounds start with this. */
export const CONTINUATION_PREFIX = 'janus-proxy.';
/** How long a continuation waits for the retry that answers its round, unless the proxy's options say otherwise. */
export const CONTINUATION_TTL_MS = 10 * 60_000;

/**
 * The downstream request carrying a continuation for now: a request to this instance, or a
 * retry that reached another instance of the cluster and is relayed here.
 */
export interface Carrier {
  /** Aborted when the downstream request is cancelled: the upstream call is cancelled with it. */
  readonly signal: AbortSignal;
  /** What the downstream client declared (undefined: not known, every question is asked). */
  readonly capabilities: ClientCapabilities | undefined;
  progress(progress: number, total?: number, message?: string): void;
  log(level: LoggingLevel, data: unknown, logger?: string): void;
}

/** A request to this instance as a carrier. */
export function carrierOf(ctx: RequestContext): Carrier {
  return {
    signal: ctx.signal,
    capabilities: ctx.client.capabilities,
    progress: (p, total, message) => ctx.progress(p, total, message),
    log: (level, data, logger) => ctx.log(level, data, logger),
  };
}

/** The capability a downstream client needs for each question. */
const NEEDS: Record<AskMethod, 'elicitation' | 'sampling' | 'roots'> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

interface PendingAsk {
  request: InputRequest;
  resolve: (answer: object) => void;
  reject: (e: unknown) => void;
}

export type Step = { result: CallToolResult } | { inputRequests: Record<string, InputRequest> };

export class Continuation implements Asker {
  /** The `requestState` of the round waiting for its retry: a new one each round, so each is accepted once. */
  private state: string | undefined;
  private readonly controller = new AbortController();
  private readonly pending = new Map<string, PendingAsk>();
  private seq = 0;
  /** Asks gathered since the last round went out settle for one turn of the event loop first. */
  private gathering = false;
  private outcome: { ok: true; result: CallToolResult } | { ok: false; error: unknown } | undefined;
  private wake: (() => void) | undefined;
  private ctx: Carrier | undefined;
  private readonly onDownstreamAbort = () => this.controller.abort(this.ctx?.signal.reason);
  private expiry: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly tool: string,
    /** The call's arguments as JSON: a retry must repeat them. */
    readonly argumentsJson: string,
    /** Drops the continuation from the proxy's table: its round expired (the upstream call is cancelled). */
    private readonly forget: (c: Continuation) => void,
    private readonly ttlMs = CONTINUATION_TTL_MS,
  ) {}

  /** Starts the upstream call; `run` gets the signal that cancels it. */
  start(run: (signal: AbortSignal, asker: Asker) => Promise<CallToolResult>): void {
    run(this.controller.signal, this).then(
      (result) => this.settle({ ok: true, result }),
      (error: unknown) => this.settle({ ok: false, error }),
    );
  }

  private settle(outcome: NonNullable<Continuation['outcome']>): void {
    this.outcome = outcome;
    for (const p of this.pending.values()) p.reject(new McpError(ErrorCode.InternalError, 'the call ended'));
    this.pending.clear();
    this.wake?.();
  }

  /** A new round goes out with `state` as its `requestState` (a new one each round). */
  newRound(state: string): string {
    this.state = state;
    return state;
  }

  /** The `requestState` of the round waiting for its retry, if one is. */
  get roundState(): string | undefined {
    return this.state;
  }

  /** The downstream request now carrying this call: its progress, logs and cancellation. */
  attach(ctx: Carrier): void {
    clearTimeout(this.expiry);
    this.ctx = ctx;
    ctx.signal.addEventListener('abort', this.onDownstreamAbort, { once: true });
    if (ctx.signal.aborted) this.onDownstreamAbort();
  }

  /** Gives the call up (a retry came, but no one waits for its outcome any more): the upstream call is cancelled. */
  cancel(reason: unknown): void {
    clearTimeout(this.expiry);
    this.controller.abort(reason);
  }

  /** The downstream request ended; a round in progress waits `ttlMs` for its retry. */
  detach(waitingForRetry: boolean): void {
    this.ctx?.signal.removeEventListener('abort', this.onDownstreamAbort);
    this.ctx = undefined;
    if (waitingForRetry) {
      this.expiry = setTimeout(() => {
        this.controller.abort(
          new McpError(ErrorCode.InvalidRequest, `no retry answered the input_required round within ${this.ttlMs / 1000} s`),
        );
        this.forget(this);
      }, this.ttlMs);
      this.expiry.unref?.();
    }
  }

  progress(progress: number, total?: number, message?: string): void {
    this.ctx?.progress(progress, total, message);
  }

  log(level: LoggingLevel, data: unknown, logger?: string): void {
    this.ctx?.log(level, data, logger);
  }

  declares(capability: 'elicitation' | 'sampling' | 'roots'): boolean {
    const caps = this.ctx?.capabilities;
    return caps === undefined || Boolean(caps[capability]);
  }

  /** The upstream asks: the question joins the next round, and is answered by its retry. */
  ask(...[method, params]: Question): Promise<object> {
    const need = NEEDS[method];
    if (!this.declares(need)) {
      return Promise.reject(new McpError(ErrorCode.MethodNotFound, `the downstream client did not declare the ${need} capability`));
    }
    const key = `${need}-${++this.seq}`;
    return new Promise<object>((resolve, reject) => {
      this.pending.set(key, { request: { method, params } as InputRequest, resolve, reject });
      if (this.gathering) return;
      this.gathering = true;
      // Questions asked together (a stateless upstream's round) go out in one round.
      setImmediate(() => {
        this.gathering = false;
        this.wake?.();
      });
    });
  }

  /** The retry's `inputResponses`: each answers the question of its key; unknown keys are ignored (mrtr.mdx). */
  answer(responses: Record<string, unknown>): void {
    for (const [key, value] of Object.entries(responses)) {
      const p = this.pending.get(key);
      if (p === undefined || typeof value !== 'object' || value === null) continue;
      this.pending.delete(key);
      p.resolve(value);
    }
  }

  /** What the downstream request answers: the call's result, or a round of the questions still open. */
  async next(): Promise<Step> {
    for (;;) {
      const outcome = this.outcome;
      if (outcome) {
        if (outcome.ok) return { result: outcome.result };
        throw outcome.error;
      }
      if (this.pending.size > 0 && !this.gathering) {
        return { inputRequests: Object.fromEntries([...this.pending].map(([k, p]) => [k, p.request])) };
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}
