/**
 * A session as an extension may act on it (`CallSite.session`, call.ts): made once per
 * session, on the first request that needs it, so that a call costs no object for it.
 */
import type { JsonRpcMessage } from '../../protocol/jsonrpc.js';
import type { Asker } from '../ask.js';
import type { SiteSession } from '../call.js';
import type { SessionHandle } from '../context.js';
import type { Inbound } from '../transport-seam.js';
import type { Session } from './session.js';
import { SessionAsker } from './session-asker.js';
import { handleOf } from './session-handle.js';

class SessionSite implements SiteSession {
  constructor(private readonly session: Session) {}

  get id(): string {
    return this.session.id;
  }

  get closed(): boolean {
    return this.session.closed;
  }

  get released(): boolean {
    return this.session.released;
  }

  get reachable(): boolean {
    return this.session.reachable;
  }

  onClosed(hook: () => void): void {
    this.session.onClosed(() => hook());
  }

  sendUnsolicited(message: JsonRpcMessage): void {
    this.session.sendUnsolicited(message);
  }

  asker(via: Inbound | undefined, signal: AbortSignal | undefined): Asker {
    return new SessionAsker(this.session, via, signal === undefined ? undefined : { signal });
  }

  handle(): SessionHandle {
    return handleOf(this.session);
  }
}

/** The session's site, made on first use. */
export function siteOf(session: Session): SiteSession {
  return (session.site ??= new SessionSite(session));
}
