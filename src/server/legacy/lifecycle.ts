/**
 * The core's side of its legacy sessions' lives: the session hooks (session-hooks.ts), the
 * server's pings (pinger.ts) and the count of open initialized sessions (`server.stats()`).
 */
import { JanusError } from '../../protocol/errors.js';
import { SessionEvents, type SessionOptions } from '../session-hooks.js';
import { SessionPinger } from './pinger.js';
import { handleOf } from './session-handle.js';
import type { Session, SessionLifecycle } from './session.js';

const isPositive = (n: unknown): n is number => typeof n === 'number' && n > 0 && Number.isFinite(n);

function pingerOf(ping: SessionOptions['ping']): SessionPinger | undefined {
  if (ping === undefined) return undefined;
  const timeoutMs = ping.timeoutMs ?? ping.intervalMs;
  if (!isPositive(ping.intervalMs) || !isPositive(timeoutMs)) {
    throw new JanusError('REGISTRATION', 'sessions.ping: intervalMs and timeoutMs are positive, finite numbers of milliseconds');
  }
  return new SessionPinger(ping.intervalMs, timeoutMs);
}

export class SessionLife implements SessionLifecycle {
  readonly events: SessionEvents;
  /** Open sessions that initialized (here, or elsewhere and served here: cluster). */
  open = 0;
  private readonly counted = new WeakSet<Session>();
  private readonly pinger: SessionPinger | undefined;

  constructor(
    options: SessionOptions | undefined,
    reportError: (error: unknown) => void,
    /** Drops an ended session from the core's map. */
    private readonly forget: (session: Session) => void,
  ) {
    this.events = new SessionEvents(reportError);
    this.pinger = pingerOf(options?.ping);
    if (options !== undefined) this.events.subscribe(options);
  }

  initialized(session: Session): void {
    this.count(session);
    this.pinger?.start(session);
    this.fire('onInitialized', session);
  }

  rootsChanged(session: Session): void {
    this.fire('onRootsChanged', session);
  }

  /** Hooks run where things happen: a session another instance opened only counts here. */
  adopted(session: Session): void {
    this.count(session);
  }

  /** Cluster: pings run where the session's GET stream is, which is here now. */
  streamHeld(session: Session): void {
    this.pinger?.start(session);
  }

  closed(session: Session): void {
    this.forget(session);
    this.pinger?.stop(session);
    if (this.counted.delete(session)) this.open--;
    // A session that never initialized had no handle, so nobody heard of it to hear of its end;
    // one this instance only let go of (cluster) did not end.
    if (!session.initialized || session.released) return;
    this.fire('onClosed', session);
  }

  private count(session: Session): void {
    if (this.counted.has(session)) return;
    this.counted.add(session);
    this.open++;
  }

  private fire(name: 'onInitialized' | 'onRootsChanged' | 'onClosed', session: Session): void {
    if (this.events.wants(name)) this.events.fire(name, handleOf(session));
  }
}
