/**
 * Multi round-trip requests (basic/patterns/mrtr.mdx). The handler runs as if it could
 * ask the client; an ask with no answer yet is recorded and never settles. Once the
 * handler is blocked (a macrotask after the first unanswered ask, so `Promise.all` of
 * several asks is one round), the call ends with `input_required`. The retry replays the
 * handler with the answers: this round's from `inputResponses`, earlier rounds' from the
 * signed `requestState`.
 */
import { ErrorCode, McpError } from '../../protocol/errors.js';
import type { ClientCapabilities } from '../../protocol/types.js';
import { clientCan, requiredCapability, type AskMethod, type Asker } from '../call.js';
import type { AskOptions } from '../context.js';

type Params = Record<string, unknown>;

const later: (fn: () => void) => void =
  typeof setImmediate === 'function' ? (fn) => void setImmediate(fn) : (fn) => void setTimeout(fn, 0);

const SHORT: Record<AskMethod, string> = {
  'elicitation/create': 'elicit',
  'sampling/createMessage': 'sample',
  'roots/list': 'roots',
};

/** Does a client's answer have the shape its method's result needs? */
function answers(method: AskMethod, v: unknown): v is Params {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const r = v as Params;
  switch (method) {
    case 'elicitation/create':
      return (r.action === 'accept' || r.action === 'decline' || r.action === 'cancel') &&
        (r.content === undefined || (typeof r.content === 'object' && r.content !== null && !Array.isArray(r.content)));
    case 'sampling/createMessage':
      return typeof r.role === 'string' && typeof r.content === 'object' && r.content !== null;
    case 'roots/list':
      return Array.isArray(r.roots);
  }
}

export const BLOCKED: unique symbol = Symbol('blocked on input');

export class MrtrRound implements Asker {
  private seq = 0;
  /** Unanswered asks of this round, by key (made on the first one: most calls ask nothing). */
  private pendingAsks: Map<string, { method: AskMethod; params: Params }> | undefined;
  /** Answers the handler consumed, kept for the next round's state. */
  readonly used: Params = {};

  get asked(): Map<string, { method: AskMethod; params: Params }> {
    return (this.pendingAsks ??= new Map());
  }
  private release: () => void = () => {};
  private scheduled = false;

  constructor(private readonly known: Params, private readonly capabilities: ClientCapabilities) {}

  /** The handler's result, or BLOCKED once it is parked on unanswered asks. */
  outcome(work: Promise<Params>): Promise<Params | typeof BLOCKED> {
    return new Promise((resolve, reject) => {
      this.release = () => resolve(BLOCKED);
      work.then(resolve, reject);
    });
  }

  ask(method: AskMethod, params: Params, options: AskOptions | undefined): Promise<Params> {
    const key = options?.key ?? `${SHORT[method]}-${this.seq}`;
    this.seq++;
    const answer = this.known[key];
    if (answers(method, answer)) {
      this.used[key] = answer;
      return Promise.resolve(answer);
    }
    // basic/index.mdx: a request that needs an undeclared capability gets -32021.
    if (!clientCan(this.capabilities as Params, method, params)) {
      return Promise.reject(new McpError(ErrorCode.MissingRequiredClientCapability, `This request needs the client capability for ${method}`, {
        requiredCapabilities: requiredCapability(method, params),
      }));
    }
    if (this.asked.has(key)) {
      return Promise.reject(new McpError(ErrorCode.InternalError, `input key "${key}" was asked twice in one round`));
    }
    this.asked.set(key, { method, params });
    if (!this.scheduled) {
      this.scheduled = true;
      later(() => this.release());
    }
    return new Promise<Params>(() => {});
  }

  inputRequests(): Params {
    const out: Params = {};
    for (const [key, r] of this.asked) out[key] = { method: r.method, params: r.params };
    return out;
  }
}
