/**
 * Retries relayed between the proxy instances of a cluster (relay.ts carries the messages).
 * A 2026-07-28 retry that reaches an instance other than the one holding its upstream call
 * (the owner, named in the `requestState`) is sent there with its answers; the owner checks
 * and takes the state exactly as for a retry of its own (bound to its call, accepted once),
 * lets the call go on, and sends back its progress, logs and outcome: the result, the next
 * round, or the error. While it works it says it is alive; an owner that does not take the
 * message, or says nothing for `OWNER_SILENCE_MS`, is gone, and the call is given up (an owner
 * that was only paused cancels it when the cancellation reaches it): the retry is refused with
 * -32602, asking the client to start the call again. Replaying it here instead would repeat what
 * the upstream tool did before it asked, without the client knowing.
 */
import { randomUUID } from 'node:crypto';
import { ErrorCode, JanusError, McpError } from '../errors/index.js';
import type { CallToolResult, ClientCapabilities, InputRequest, LoggingLevel } from '../protocol/index.js';
import type { Carrier, Continuation } from './continuation.js';
import type { ContinuationRelay } from './relay.js';

/** What one downstream request of a continued call answers: the result, or the next round. */
export type RoundOutcome = { result: CallToolResult } | { inputRequests: Record<string, InputRequest>; requestState: string };

/** How long a relayed retry waits for a word from the owner, by default. */
const OWNER_SILENCE_MS = 10_000;
/** How often an owner working on a relayed retry says it is alive. */
const ALIVE_EVERY_MS = 2_000;
/** Relayed retries remembered as taken, so a message delivered twice is served once. */
const REMEMBERED = 4096;

/** A `requestState` refused (-32602), with why in `data.reason` for programs. */
export function stateError(reason: 'expired' | 'used' | 'unknown' | 'owner_gone', message: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `Invalid params: ${message}`, { reason });
}

/** A retry sent to the owner. */
interface RetryMessage {
  t: 'retry';
  /** This relayed retry's id: replies and the cancellation name it. */
  id: string;
  /** The instance waiting for the replies. */
  from: string;
  state: string;
  tool: string;
  args: string;
  responses: Record<string, unknown>;
  caps: ClientCapabilities;
}

/** What goes between the instances about one relayed retry. */
type Message =
  | RetryMessage
  | { t: 'cancel'; id: string }
  | { t: 'alive'; id: string }
  | { t: 'progress'; id: string; progress: number; total?: number; message?: string }
  | { t: 'log'; id: string; level: LoggingLevel; data: unknown; logger?: string }
  | { t: 'result'; id: string; result: CallToolResult }
  | { t: 'round'; id: string; inputRequests: Record<string, InputRequest>; requestState: string }
  | { t: 'error'; id: string; code?: number; message: string; data?: unknown };

type Reply = Exclude<Message, RetryMessage | { t: 'cancel' }>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const optional = <T>(v: unknown, is: (x: unknown) => x is T): v is T | undefined => v === undefined || is(v);
const isString = (v: unknown): v is string => typeof v === 'string';
const isNumber = (v: unknown): v is number => typeof v === 'number';
const isResult = (v: unknown): v is CallToolResult => isObject(v) && Array.isArray(v.content);
const isInputRequests = (v: unknown): v is Record<string, InputRequest> =>
  isObject(v) && Object.values(v).every((r) => isObject(r) && isString(r.method));

/** A message from the relay, if it is one of the proxy's (a relay may be shared with other programs). */
function parse(text: string): Message | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(v) || !isString(v.id)) return undefined;
  const { id } = v;
  switch (v.t) {
    case 'retry': {
      const { from, state, tool, args, responses, caps } = v;
      if (!isString(from) || !isString(state) || !isString(tool) || !isString(args) || !isObject(responses) || !isObject(caps))
        return undefined;
      return { t: 'retry', id, from, state, tool, args, responses, caps };
    }
    case 'cancel':
    case 'alive':
      return { t: v.t, id };
    case 'progress': {
      const { progress, total, message } = v;
      if (!isNumber(progress) || !optional(total, isNumber) || !optional(message, isString)) return undefined;
      return { t: 'progress', id, progress, total, message };
    }
    case 'log': {
      const { level, data, logger } = v;
      if (!isString(level) || !optional(logger, isString)) return undefined;
      return { t: 'log', id, level: level as LoggingLevel, data, logger };
    }
    case 'result':
      return isResult(v.result) ? { t: 'result', id, result: v.result } : undefined;
    case 'round': {
      const { inputRequests, requestState } = v;
      if (!isInputRequests(inputRequests) || !isString(requestState)) return undefined;
      return { t: 'round', id, inputRequests, requestState };
    }
    case 'error': {
      const { code, message, data } = v;
      if (!optional(code, isNumber) || !isString(message)) return undefined;
      return { t: 'error', id, code, message, data };
    }
    default:
      return undefined;
  }
}

/** What a retry relayed from here needs: the downstream request waiting for its outcome. */
export interface RelayedRetry {
  state: string;
  tool: string;
  args: string;
  responses: Record<string, unknown>;
  carrier: Carrier;
}

/** What the relays need of the bridge: the continuations it holds. */
export interface Holder {
  claim(state: string, tool: string, argumentsJson: string): Continuation;
  step(continuation: Continuation, carrier: Carrier, responses: Record<string, unknown>): Promise<RoundOutcome>;
  reportError(e: unknown): void;
}

/** Both ends of the relayed retries of one instance. */
export class Relays {
  /** Retries relayed from here, waiting for the owner's replies. */
  private readonly waiting = new Map<string, (reply: Reply) => void>();
  /** Retries relayed here, being served: their cancellation. */
  private readonly serving = new Map<string, AbortController>();
  private readonly served = new Set<string>();
  private stop: (() => Promise<void>) | undefined;

  constructor(
    private readonly relay: ContinuationRelay,
    private readonly instance: string,
    private readonly holder: Holder,
  ) {}

  async start(): Promise<void> {
    this.stop = await this.relay.listen(this.instance, (text) => this.receive(text));
  }

  async close(): Promise<void> {
    for (const controller of this.serving.values()) controller.abort(new McpError(ErrorCode.InternalError, 'the proxy closed'));
    for (const [id, deliver] of this.waiting) deliver({ t: 'error', id, code: ErrorCode.InternalError, message: 'the proxy is closing' });
    await this.stop?.();
  }

  private receive(text: string): void {
    const m = parse(text);
    if (m === undefined) {
      this.holder.reportError(new Error(`the continuation relay delivered a message that is not the proxy's: ${text.slice(0, 200)}`));
      return;
    }
    if (m.t === 'retry') void this.serve(m);
    else if (m.t === 'cancel') this.cancel(m.id);
    else this.waiting.get(m.id)?.(m);
  }

  /** The side that got a retry gave up on it (its client went away, or this instance was silent too long). */
  private cancel(id: string): void {
    const serving = this.serving.get(id);
    if (serving) serving.abort(new JanusError('ABORTED', 'the downstream request was cancelled, or its instance stopped waiting'));
    // Not here yet: it is refused when it comes.
    else this.remember(id);
  }

  private remember(id: string): void {
    this.served.add(id);
    if (this.served.size > REMEMBERED) this.served.delete(this.served.values().next().value!);
  }

  /** The owner's side: the retry goes on here, as one of this instance's own. */
  private async serve(m: RetryMessage): Promise<void> {
    if (this.served.has(m.id)) return;
    this.remember(m.id);
    const controller = new AbortController();
    this.serving.set(m.id, controller);
    // One chain per retry: its replies arrive in the order they were made.
    let sent = Promise.resolve();
    const reply = (r: Reply) => {
      sent = sent.then(() =>
        this.relay.send(m.from, JSON.stringify(r)).then(
          () => undefined,
          (e: unknown) => this.holder.reportError(e),
        ),
      );
    };
    reply({ t: 'alive', id: m.id });
    const alive = setInterval(() => reply({ t: 'alive', id: m.id }), ALIVE_EVERY_MS);
    try {
      // A cancellation delivered with the retry (this instance was paused, and the other gave up
      // meanwhile) arrives by the next turn: then the call is given up, as the other told its client.
      await new Promise((resolve) => setImmediate(resolve));
      const continuation = this.holder.claim(m.state, m.tool, m.args);
      if (controller.signal.aborted) {
        continuation.cancel(controller.signal.reason);
        return;
      }
      const outcome = await this.holder.step(
        continuation,
        {
          signal: controller.signal,
          capabilities: m.caps,
          progress: (progress, total, message) => reply({ t: 'progress', id: m.id, progress, total, message }),
          log: (level, data, logger) => reply({ t: 'log', id: m.id, level, data, logger }),
        },
        m.responses,
      );
      reply('result' in outcome ? { t: 'result', id: m.id, result: outcome.result } : { t: 'round', id: m.id, ...outcome });
    } catch (e) {
      reply(
        e instanceof McpError
          ? { t: 'error', id: m.id, code: e.code, message: e.message, data: e.data }
          : { t: 'error', id: m.id, message: e instanceof Error ? e.message : String(e) },
      );
    } finally {
      clearInterval(alive);
      this.serving.delete(m.id);
    }
  }

  /** The side that got the retry: sends it to `owner` and waits for its outcome. */
  retry(owner: string, r: RelayedRetry): Promise<RoundOutcome> {
    const id = randomUUID();
    const { carrier } = r;
    return new Promise<RoundOutcome>((resolve, reject) => {
      let silence: ReturnType<typeof setTimeout> | undefined;
      const end = () => {
        clearTimeout(silence);
        this.waiting.delete(id);
        carrier.signal.removeEventListener('abort', cancelled);
      };
      const cancel = () => void this.relay.send(owner, JSON.stringify({ t: 'cancel', id } satisfies Message)).catch(() => undefined);
      const gone = (why: string) => {
        end();
        // An owner that is only slow gives the call up when this reaches it, rather than finish it for no one.
        cancel();
        reject(
          stateError(
            'owner_gone',
            `requestState names a call held by another proxy instance, which ${why}; the call is given up (its upstream call cancelled, or gone with that instance). Call the tool again without requestState to start over: the upstream tool runs again from its start`,
          ),
        );
      };
      const heard = () => {
        clearTimeout(silence);
        silence = setTimeout(() => gone(`did not answer within ${OWNER_SILENCE_MS / 1000} s`), OWNER_SILENCE_MS);
      };
      const cancelled = () => {
        end();
        cancel();
        reject(carrier.signal.reason);
      };
      if (carrier.signal.aborted) return reject(carrier.signal.reason);
      carrier.signal.addEventListener('abort', cancelled, { once: true });
      this.waiting.set(id, (m) => {
        switch (m.t) {
          case 'alive':
            return heard();
          case 'progress':
            heard();
            return carrier.progress(m.progress, m.total, m.message);
          case 'log':
            heard();
            return carrier.log(m.level, m.data, m.logger);
          case 'result':
            end();
            return resolve({ result: m.result });
          case 'round':
            end();
            return resolve({ inputRequests: m.inputRequests, requestState: m.requestState });
          case 'error':
            end();
            return reject(m.code === undefined ? new Error(m.message) : new McpError(m.code, m.message, m.data));
        }
      });
      heard();
      const message: Message = {
        t: 'retry',
        id,
        from: this.instance,
        state: r.state,
        tool: r.tool,
        args: r.args,
        responses: r.responses,
        caps: carrier.capabilities ?? {},
      };
      this.relay.send(owner, JSON.stringify(message)).then(
        (taken) => {
          if (!taken && this.waiting.has(id)) gone('is no longer running (or is not of this cluster)');
        },
        (e: unknown) => {
          if (!this.waiting.has(id)) return;
          end();
          reject(
            new McpError(
              ErrorCode.InternalError,
              `the retry could not be passed to the proxy instance holding its call (${e instanceof Error ? e.message : String(e)}); try the retry again`,
            ),
          );
        },
      );
    });
  }
}
