/**
 * Where a session's state lives beyond its object: what depends on whether one process serves
 * it (`LocalReplica`, here) or any instance of a cluster does (`ClusterReplica`,
 * cluster-replica.ts). The session (session.ts) keeps its state and asks its replica whenever
 * the answer differs; it never asks which one it has.
 */
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcResponse, RequestId } from '../../protocol/jsonrpc.js';
import type { LoggingLevel } from '../../protocol/types.js';
import type { ListKind } from '../registry.js';
import type { NewSessionRecord } from './session-store.js';
import type { SessionHost, SharedSessionLink } from './transport-seam.js';

/** What a session asks of where its state lives. */
export interface Replica {
  /** The transport's handle on the shared record; undefined in one process. */
  readonly link: SharedSessionLink | undefined;
  /** Closing without ending leaves the session to another instance (`Session.released`). */
  readonly handsOver: boolean;
  /** `initialize` succeeded: the session exists for every instance before its client learns of it. */
  opened(record: NewSessionRecord): void | Promise<void>;
  /** `notifications/initialized`: resolves once the session is ready wherever it is served. */
  initialized(): void | Promise<void>;
  logLevelSet(level: LoggingLevel): void | Promise<void>;
  /** Whether the subscription fits within `max` (counted over `held`, or where the record is); records it. */
  subscribe(uri: string, max: number, held: ReadonlySet<string> | undefined): boolean | Promise<boolean>;
  unsubscribe(uri: string): void | Promise<void>;
  /** Whether an unsolicited message reaches the client now. */
  readonly reachable: boolean;
  /** Before asking the client with nothing to carry the request: where its stream is may have changed. */
  lookAgain(): Promise<unknown> | undefined;
  /** The id of the server's `n`th request to the client: one that finds its way back to this instance. */
  requestId(n: number): RequestId;
  sendUnsolicited(message: JsonRpcMessage): void;
  /** Whether this instance tells the session of registry changes and resource updates. */
  readonly toldHere: boolean;
  /**
   * Whether this instance runs the server's pings of the session (`sessions.ping`): in one
   * process, always; in a cluster, where its GET stream is (where the pings go out).
   */
  readonly pingsHere: boolean;
  /** A list changed; `live`: its notification reached the client now. */
  listChanged(kind: ListKind, live: boolean): void;
  /** The client fetched the list: nothing to announce for it any more. */
  listFetched(kind: ListKind): void | Promise<void>;
  /** The `list_changed` notifications to announce again, on the next response stream. */
  pendingAnnouncements(): readonly JsonRpcNotification[];
  /** An answer to a request this instance did not send: passed on to the one that did (false: nobody's). */
  answerElsewhere(response: JsonRpcResponse): boolean;
  /** A cancellation of a request that does not run here: passed on to where it runs. */
  cancelElsewhere(requestId: RequestId, reason: string): void;
  /** The session ended: settles once every instance can know it (rejects when it could not be recorded). */
  end(): Promise<void> | undefined;
}

const NOTHING: readonly JsonRpcNotification[] = Object.freeze([]);

const announce = (kind: ListKind): JsonRpcNotification => ({ jsonrpc: '2.0', method: `notifications/${kind}/list_changed` });

/** One process serves the session: its state is the session object's, its messages go to its host. */
export class LocalReplica implements Replica {
  /**
   * The "changed since last fetched" marker: lists changed since the client last fetched them,
   * each with whether the change reached the client live. Cleared only by fetching the list,
   * not by announcing it.
   */
  private changedLists: Map<ListKind, boolean> | undefined;

  constructor(private readonly host: SessionHost) {}

  get link(): undefined {
    return undefined;
  }

  get handsOver(): boolean {
    return false;
  }

  opened(): void {}

  initialized(): void {}

  logLevelSet(): void {}

  subscribe(uri: string, max: number, held: ReadonlySet<string> | undefined): boolean {
    return held?.has(uri) === true || (held?.size ?? 0) < max;
  }

  unsubscribe(): void {}

  get reachable(): boolean {
    return this.host.connected !== false;
  }

  lookAgain(): undefined {
    return undefined;
  }

  requestId(n: number): RequestId {
    return n;
  }

  sendUnsolicited(message: JsonRpcMessage): void {
    this.host.send(message);
  }

  get toldHere(): boolean {
    return true;
  }

  get pingsHere(): boolean {
    return true;
  }

  listChanged(kind: ListKind, live: boolean): void {
    (this.changedLists ??= new Map()).set(kind, live || this.changedLists.get(kind) === true);
  }

  listFetched(kind: ListKind): void {
    this.changedLists?.delete(kind);
  }

  pendingAnnouncements(): readonly JsonRpcNotification[] {
    const changed = this.changedLists;
    if (changed === undefined || changed.size === 0) return NOTHING;
    const out: JsonRpcNotification[] = [];
    for (const [kind, live] of changed) if (!live) out.push(announce(kind));
    return out;
  }

  answerElsewhere(): boolean {
    return false;
  }

  cancelElsewhere(): void {}

  end(): undefined {
    return undefined;
  }
}

/** The announcements for lists a cluster has not told the client of. */
export function announcementsOf(kinds: ReadonlySet<ListKind>): readonly JsonRpcNotification[] {
  return kinds.size === 0 ? NOTHING : [...kinds].map(announce);
}
