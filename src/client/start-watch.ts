/**
 * The clock of the server/discover probe on a channel to a process that may still be
 * starting (stdio). The spec (2026-07-28 basic/transports/stdio.mdx §Backward
 * Compatibility) says to take a server that "does not respond within a reasonable timeout"
 * for a legacy one; but a child behind `npx` or `tsx` can take many seconds to start, and
 * the client cannot see when it begins to read stdin. So the timeout counts from the
 * server's first sign of life, not from the spawn:
 *
 * 1. server/discover goes out first and alone (the spec: before any other request).
 * 2. If nothing has come back after a second (or `probeTimeoutMs`, or half of
 *    `startTimeoutMs`, if shorter), a `ping` follows. Every legacy revision allows ping before initialize and requires an answer
 *    (basic/lifecycle.mdx, utilities/ping.mdx); 2026-07-28 removed it, so a modern server
 *    answers it with an error, which is an answer all the same. A server that answers
 *    discover within that second never sees the ping.
 * 3. Any message from the server (the ping's answer, result or error, or anything else)
 *    proves it is running and reading: from then on server/discover gets `probeTimeoutMs`
 *    before the client decides "legacy".
 * 4. With no sign of life within `startTimeoutMs`, the client decides "legacy" as well and
 *    sends initialize, whose own timeout (`timeoutMs`) then applies.
 *
 * A child that exits meanwhile rejects the probe with its exit error, never a verdict.
 */
import { JanusError } from '../protocol/errors.js';
import type { CallOptions } from './peer.js';
import { timeoutError } from './peer.js';

/** What the watch needs of the client's wire (wire.ts): arrivals, and a way to send the ping. */
export interface WatchedWire {
  onActivity(listener: () => void): () => void;
  call(method: string, params: Record<string, unknown>, options: CallOptions): Promise<unknown>;
}

export const DEFAULT_PROBE_TIMEOUT_MS = 3000;
export const DEFAULT_START_TIMEOUT_MS = 30_000;
/** How long the probe waits for server/discover alone before it also sends a ping. */
const PING_AFTER_MS = 1000;

const limited = (ms: number) => ms > 0 && ms !== Infinity;

export class StartWatch {
  private readonly controller = new AbortController();
  private readonly startedAt = Date.now();
  private alive = false;
  private stopped = false;
  private deadline: ReturnType<typeof setTimeout> | undefined;
  private readonly pingTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly stopListening: () => void;

  constructor(
    private readonly wire: WatchedWire,
    private readonly probeTimeoutMs: number,
    startTimeoutMs: number,
  ) {
    this.stopListening = wire.onActivity(() => this.sawLife());
    if (limited(startTimeoutMs)) {
      this.deadline = setTimeout(() => this.expire(silentError(startTimeoutMs)), startTimeoutMs);
    }
    // Sooner when a short probeTimeoutMs or startTimeoutMs asks for it: the ping must go out before the start bound.
    const pingAfter = Math.min(
      PING_AFTER_MS,
      limited(probeTimeoutMs) ? probeTimeoutMs : Infinity,
      limited(startTimeoutMs) ? startTimeoutMs / 2 : Infinity,
    );
    this.pingTimer = setTimeout(() => this.ping(), pingAfter);
  }

  /** For the server/discover call: the watch, not the peer, keeps its clock. */
  callOptions(): CallOptions {
    return { timeoutMs: 0, signal: this.controller.signal };
  }

  /** How long the server has been silent since it was started, or undefined once it has said anything. */
  get silentForMs(): number | undefined {
    return this.alive ? undefined : Date.now() - this.startedAt;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.deadline);
    clearTimeout(this.pingTimer);
    this.stopListening();
  }

  private ping(): void {
    if (this.alive || this.stopped) return;
    // Its answer, result or error, is a sign of life; what it says is not looked at. (The
    // channel reports every arrival too; a channel of the caller's own may not.)
    void this.wire.call('ping', {}, { timeoutMs: 0 }).then(
      () => this.sawLife(),
      () => {},
    );
  }

  private sawLife(): void {
    if (this.alive || this.stopped) return;
    this.alive = true;
    clearTimeout(this.pingTimer);
    clearTimeout(this.deadline);
    this.deadline = undefined;
    if (limited(this.probeTimeoutMs)) {
      this.deadline = setTimeout(() => this.expire(timeoutError('server/discover', this.probeTimeoutMs)), this.probeTimeoutMs);
    }
  }

  private expire(error: JanusError): void {
    this.controller.abort(error);
  }
}

function silentError(ms: number): JanusError {
  return new JanusError('TIMEOUT', `the server answered neither server/discover nor ping within ${ms} ms of starting (startTimeoutMs)`);
}

/**
 * initialize timed out after a start with no sign of life at all: say both, and what to check.
 * (A server that answers nothing before initialize is out of spec, but exists; so the client tried.)
 */
export function silentServerError(initializeTimeout: Error, silentForMs: number, timeoutMs: number): JanusError {
  return new JanusError(
    'TIMEOUT',
    `initialize timed out: the server sent nothing at all, no answer to server/discover or ping in the ${silentForMs} ms after it was started, ` +
      `then none to initialize within ${timeoutMs} ms. It may still be starting (raise startTimeoutMs and timeoutMs), ` +
      'be stuck, or not speak MCP on its stdout: run the command by hand to check.',
    { cause: initializeTimeout },
  );
}
