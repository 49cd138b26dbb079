/**
 * The server's own pings (basic/utilities/ping.mdx: implementations SHOULD ping periodically,
 * and treat a timeout as a connection failure). Each initialized session is pinged
 * `intervalMs` after its last ping settled, while something can reach its client; one left
 * unanswered for `timeoutMs` ends the session. Timers are unref'd (a ping never keeps the
 * process alive) and cleared when the session ends.
 */
import { JanusError } from '../../protocol/errors.js';
import type { Session } from './session.js';

export class SessionPinger {
  private readonly timers = new Map<Session, ReturnType<typeof setTimeout>>();

  constructor(
    private readonly intervalMs: number,
    private readonly timeoutMs: number,
  ) {}

  start(session: Session): void {
    if (!session.closed && !this.timers.has(session)) this.schedule(session);
  }

  stop(session: Session): void {
    clearTimeout(this.timers.get(session));
    this.timers.delete(session);
  }

  private schedule(session: Session): void {
    const timer = setTimeout(() => void this.beat(session), this.intervalMs);
    timer.unref?.();
    this.timers.set(session, timer);
  }

  private async beat(session: Session): Promise<void> {
    this.timers.delete(session);
    if (session.closed) return;
    // An HTTP session with no GET stream open cannot be pinged: its idle expiry is the transport's.
    if (session.reachable) {
      try {
        await session.request('ping', {}, undefined, undefined, this.timeoutMs);
      } catch (e) {
        if (e instanceof JanusError && e.code === 'TIMEOUT') {
          // A dead client is no server failure: the session just ends, and onClosed says so.
          session.close();
          return;
        }
        // An error answer is still an answer; a session that closed meanwhile stops below.
      }
    }
    if (!session.closed) this.schedule(session);
  }
}
