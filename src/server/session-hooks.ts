/**
 * Session hooks: what server code hears of the handshake era's sessions (initialized, roots
 * changed, ended). The 2026-07-28 wire is stateless and never fires
 * them. A hook that throws or rejects is reported to the server's `onError`; it never reaches
 * the client, and dispatch does not wait for it.
 */
import type { SessionHandle } from './context.js';

/**
 * Callbacks for the life of legacy sessions (`ServerOptions.sessions`, `server.onSession`).
 * `onClosed` fires once for every session that initialized, however it ended; a session that
 * never finished its handshake fires nothing (it never had a handle).
 */
export interface SessionHooks {
  /** After `notifications/initialized`: the client is ready, and requests to it may go out (lifecycle.mdx). */
  onInitialized?(session: SessionHandle): void | Promise<void>;
  /** The client's roots changed (`notifications/roots/list_changed`): `session.roots()` has the new list. */
  onRootsChanged?(session: SessionHandle): void | Promise<void>;
  /**
   * The session ended: the client went away (stdin closed, the HTTP+SSE stream dropped), DELETE,
   * idle expiry, `session.close()`, `server.close()`, or a server ping left unanswered.
   */
  onClosed?(session: SessionHandle): void;
}

/** `ServerOptions.sessions`: hooks, and the server's own pings. */
export interface SessionOptions extends SessionHooks {
  /**
   * Ping every initialized session every `intervalMs` while something can reach its client (not
   * an HTTP session with no GET stream open); a ping unanswered within `timeoutMs` (default
   * `intervalMs`) ends the session, which fires `onClosed`. An error answer counts as alive.
   * Off by default (basic/utilities/ping.mdx: implementations SHOULD ping periodically).
   */
  ping?: { intervalMs: number; timeoutMs?: number };
}

type HookName = keyof SessionHooks;

/** The subscribers of one server, in order: the options' hooks first, then `onSession`'s. */
export class SessionEvents {
  private subscribers: readonly SessionHooks[] = [];

  constructor(private readonly reportError: (error: unknown) => void) {}

  /** Adds hooks; returns what removes them. */
  subscribe(hooks: SessionHooks): () => void {
    if (typeof hooks !== 'object' || hooks === null) throw new TypeError('server.onSession(hooks): hooks is an object of callbacks');
    this.subscribers = [...this.subscribers, hooks];
    return () => {
      this.subscribers = this.subscribers.filter((h) => h !== hooks);
    };
  }

  /** Whether anyone listens for `name` (a session's handle is made only when one does). */
  wants(name: HookName): boolean {
    return this.subscribers.some((h) => typeof h[name] === 'function');
  }

  /** Calls every subscriber's `name` hook; a failure is reported, and async ones are not awaited. */
  fire(name: HookName, session: SessionHandle): void {
    for (const hooks of this.subscribers) {
      const hook = hooks[name];
      if (typeof hook !== 'function') continue;
      try {
        const out: unknown = hook.call(hooks, session);
        if (isThenable(out)) Promise.resolve(out).catch((e: unknown) => this.reportError(e));
      } catch (e) {
        this.reportError(e);
      }
    }
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
