/**
 * What the client knows of the server: the verdict of era detection, kept current by the
 * era in use (a renewed legacy session, a modern `server/discover`, a version the server
 * asked for, serverInfo learnt from a result's `_meta`). The one place era state lives.
 */
import { JanusError } from '../protocol/errors.js';
import type { Implementation, ServerCapabilities } from '../protocol/types.js';
import { LATEST_LEGACY_VERSION, type Era, type ProtocolVersion } from '../protocol/versions.js';
import type { HandlerContext } from './options.js';

/**
 * What era detection found out about a server: its era and revision, its info, capabilities and
 * instructions.
 */
export interface Verdict {
  /** The server's era. */
  era: Era;
  /** The revision to speak with it. */
  version: ProtocolVersion;
  /** Its name and version, when it gave them. */
  serverInfo: Implementation | undefined;
  /** What it declared it offers. */
  capabilities: ServerCapabilities;
  /** Its instructions, when it gave them. */
  instructions: string | undefined;
}

export class KnownServer {
  private verdict: Verdict | undefined;

  /** The verdict so far: undefined while the probe runs. */
  get current(): Verdict | undefined {
    return this.verdict;
  }

  /** The verdict, once `connect()` has reached one. */
  get known(): Verdict {
    if (!this.verdict) throw new JanusError('CONNECTION', 'not connected: await connect() first');
    return this.verdict;
  }

  settle(verdict: Verdict): void {
    this.verdict = verdict;
  }

  /** The context given to onElicit/onSample/onRoots: the era and version of the exchange that asked. */
  handlerContext(signal: AbortSignal): HandlerContext {
    return { era: this.verdict?.era ?? 'legacy', protocolVersion: this.verdict?.version ?? LATEST_LEGACY_VERSION, signal };
  }
}
