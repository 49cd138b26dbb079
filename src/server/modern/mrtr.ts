/**
 * Multi round-trip requests (basic/patterns/mrtr.mdx). The handler runs as if it could
 * ask the client; an ask with no answer yet is recorded and never settles. Once the
 * handler is blocked (a macrotask after the first unanswered ask, so `Promise.all` of
 * several asks is one round), the call ends with `input_required`. The retry replays the
 * handler with the answers: this round's from `inputResponses`, earlier rounds' from the
 * sealed `requestState`.
 */
import { ErrorCode, McpError } from '../../protocol/errors.js';
import type { ClientCapabilities, InputRequest } from '../../protocol/types.js';
import { clientCan, isAnswer, requiredCapability, type AskAnswers, type AskMethod, type AskParams, type Asker } from '../ask.js';
import type { AskOptions } from '../context.js';

const later: (fn: () => void) => void = typeof setImmediate === 'function' ? (fn) => void setImmediate(fn) : (fn) => void setTimeout(fn, 0);

/** `release` until the handler's outcome is awaited: no round is parked yet. */
const NOTHING_PARKED = (): void => {};

const SHORT: Record<AskMethod, string> = {
  'elicitation/create': 'elicit',
  'sampling/createMessage': 'sample',
  'roots/list': 'roots',
};

/** One ask of this round that has no answer yet. */
interface PendingAsk {
  readonly method: AskMethod;
  readonly params: object;
}

export const BLOCKED: unique symbol = Symbol('blocked on input');

export class MrtrRound implements Asker {
  private seq = 0;
  /** Unanswered asks of this round, by key (made on the first one: most calls ask nothing). */
  private pendingAsks: Map<string, PendingAsk> | undefined;
  /** Answers the handler consumed, kept for the next round's state (made on the first: most calls consume none). */
  private consumed: Record<string, unknown> | undefined;

  /** Answers the handler consumed, by key (the client's keys: a record without a prototype). */
  get used(): Record<string, unknown> {
    return (this.consumed ??= Object.create(null));
  }

  get asked(): Map<string, PendingAsk> {
    return (this.pendingAsks ??= new Map());
  }
  private release: () => void = NOTHING_PARKED;
  private scheduled = false;

  /**
   * `known`: the answers so far, by input key (earlier rounds' from the sealed state, this
   * round's from `inputResponses`), in a record without a prototype. `maxAsks`: the questions
   * one round may ask (`limits.maxInputRequests`).
   */
  constructor(
    private readonly known: Readonly<Record<string, unknown>>,
    private readonly capabilities: ClientCapabilities,
    private readonly maxAsks: number,
  ) {}

  /** The handler's result, or BLOCKED once it is parked on unanswered asks. */
  outcome<R>(work: Promise<R>): Promise<R | typeof BLOCKED> {
    return new Promise((resolve, reject) => {
      this.release = () => resolve(BLOCKED);
      work.then(resolve, reject);
    });
  }

  ask<M extends AskMethod>(method: M, params: AskParams[M], options: AskOptions | undefined): Promise<AskAnswers[M]> {
    const key = options?.key ?? `${SHORT[method]}-${this.seq}`;
    this.seq++;
    const answer = Object.hasOwn(this.known, key) ? this.known[key] : undefined;
    if (isAnswer(method, answer)) {
      this.used[key] = answer;
      return Promise.resolve(answer);
    }
    // basic/index.mdx: a request that needs an undeclared capability gets -32021.
    if (!clientCan(this.capabilities, method, params)) {
      return Promise.reject(
        new McpError(ErrorCode.MissingRequiredClientCapability, `This request needs the client capability for ${method}`, {
          requiredCapabilities: requiredCapability(method, params),
        }),
      );
    }
    if (this.asked.has(key)) {
      return Promise.reject(new McpError(ErrorCode.InternalError, `input key "${key}" was asked twice in one round`));
    }
    if (this.asked.size >= this.maxAsks) {
      return Promise.reject(
        new McpError(ErrorCode.InternalError, `one input round may ask at most ${this.maxAsks} questions (limits.maxInputRequests)`),
      );
    }
    this.asked.set(key, { method, params });
    if (!this.scheduled) {
      this.scheduled = true;
      later(() => this.release());
    }
    return new Promise<AskAnswers[M]>(() => {});
  }

  /** The `inputRequests` of the `input_required` result (mrtr.mdx §InputRequiredResult). */
  inputRequests(): Record<string, InputRequest> {
    const out: Record<string, InputRequest> = Object.create(null);
    for (const [key, r] of this.asked) out[key] = { method: r.method, params: { ...r.params } };
    return out;
  }
}
