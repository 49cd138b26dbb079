/**
 * The server's own pings (basic/utilities/ping.mdx: implementations SHOULD ping periodically,
 * and treat a timeout as a connection failure). Each initialized session is pinged
 * `intervalMs` after its last ping settled, while something can reach its client; one left
 * unanswered for `timeoutMs` ends the session. In a cluster only the instance holding the
 * session's GET stream pings it (the pings go out on that stream): an instance that no longer
 * holds it stops, and the one that takes the stream starts. Timers are unref'd (a ping never
 * keeps the process alive) and cleared when the session ends.
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
    // Cluster: another instance holds the GET stream, and pings on it (this one starts again if the stream comes back).
    if (session.closed || !session.pingsHere) return;
    // An HTTP session with no GET stream open cannot be pinged: its idle expiry is the transport's.
    if (session.reachable) {
      try {
        await session.request('ping', {}, undefined, undefined, this.timeoutMs);
      } catch (e) {
        // A dead client is no server failure: the session just ends, and onClosed says so. A
        // ping whose stream moved to another instance meanwhile may have gone unheard: that one pings now.
        if (e instanceof JanusError && e.code === 'TIMEOUT' && session.pingsHere) {
          session.close();
          return;
        }
        // An error answer is still an answer; a session that closed meanwhile stops below.
      }
    }
    if (!session.closed && session.pingsHere) this.schedule(session);
  }
}
