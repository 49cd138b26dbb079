/**
 * A legacy session's link to its cluster's `SessionStore` (session-store.ts): the record it
 * loads before each request (the store may answer from a copy it keeps true) and writes through, where its unsolicited messages go (the
 * instance holding its GET stream), and whom a client's answer belongs to (the instance that
 * asked). One per session per instance; absent without a cluster.
 */
import { ErrorCode, McpError } from '../../protocol/errors.js';
import type { JsonRpcMessage, JsonRpcResponse, RequestId } from '../../protocol/jsonrpc.js';
import type { LoggingLevel } from '../../protocol/types.js';
import type { ListKind, NewSessionRecord, SessionRecord, SessionSignal, SessionStore } from './session-store.js';

/** A store failure, as the client reads it: nothing about Redis' internals, and that it may retry. */
function unavailable(what: string, cause: unknown): McpError {
  const error = new McpError(ErrorCode.InternalError, `Cannot ${what}: the shared session store is unavailable; retry later`);
  error.cause = cause;
  return error;
}

const gone = (): McpError => new McpError(ErrorCode.InvalidRequest, 'Session ended');

export class SharedSession {
  /** Lists to announce again on the next response stream, as last loaded. */
  readonly unannounced = new Set<ListKind>();
  /** The instance holding the session's GET stream, as last known. */
  holder: string | undefined;
  /** Ids of this instance's requests to the client start with this, so an answer POSTed elsewhere finds its way back. */
  readonly idPrefix: string;
  /** Whether the record was written (or found): a session whose `initialize` failed has none to remove. */
  private recorded = false;

  constructor(
    readonly store: SessionStore,
    readonly id: string,
    readonly ttlMs: number,
    private readonly reportError: (error: unknown) => void,
  ) {
    this.idPrefix = `${store.instanceId}.`;
  }

  /** The holder, when it is another instance. */
  get remoteHolder(): string | undefined {
    return this.holder !== undefined && this.holder !== this.store.instanceId ? this.holder : undefined;
  }

  /** Takes what a load found (the session applies the rest). */
  take(record: SessionRecord): void {
    this.recorded = true;
    this.unannounced.clear();
    for (const kind of record.unannounced) this.unannounced.add(kind);
    this.holder = record.holder;
  }

  async create(record: NewSessionRecord): Promise<void> {
    try {
      await this.store.create(this.id, record, this.ttlMs);
    } catch (e) {
      throw unavailable('open the session', e);
    }
    this.recorded = true;
  }

  /** The record, or undefined when the session no longer exists; rejects when the store cannot be reached. */
  load(): Promise<SessionRecord | undefined> {
    return this.store.load(this.id, this.ttlMs);
  }

  async update(fields: { readonly initialized?: true; readonly logLevel?: LoggingLevel }): Promise<void> {
    let found: boolean;
    try {
      found = await this.store.update(this.id, fields);
    } catch (e) {
      throw unavailable("save the session's state", e);
    }
    if (!found) throw gone();
    // The holder serves the session's unsolicited messages (logs, resource updates) from what it knows.
    if (fields.logLevel !== undefined) await this.tellHolder({ logLevel: fields.logLevel });
  }

  /** Records the subscription unless the session holds `max` already (counted in the store, atomically): false when it does. */
  async subscribe(uri: string, max: number): Promise<boolean> {
    let reply: Awaited<ReturnType<SessionStore['subscribe']>>;
    try {
      reply = await this.store.subscribe(this.id, uri, max);
    } catch (e) {
      throw unavailable('save the subscription', e);
    }
    if (reply.outcome === 'gone') throw gone();
    if (reply.outcome === 'full') return false;
    this.holder = reply.holder;
    await this.tellHolder({ subscribed: uri });
    return true;
  }

  async unsubscribe(uri: string): Promise<void> {
    try {
      this.holder = (await this.store.unsubscribe(this.id, uri)).holder;
    } catch (e) {
      throw unavailable('save the subscription', e);
    }
    await this.tellHolder({ unsubscribed: uri });
  }

  /** The client fetched a list: awaited, so its next request (on any instance) does not hear of it again. */
  async fetched(kind: ListKind): Promise<void> {
    this.unannounced.delete(kind);
    // The list itself was served; if this fails, at worst its change is announced once more.
    const saved = this.store.fetched(this.id, kind);
    this.fireAndForget(saved, `record that the client fetched the ${kind} list`);
    await saved.catch(() => undefined);
  }

  /** A change reached the client live on this instance's GET stream. */
  told(kind: ListKind): void {
    this.unannounced.delete(kind);
    this.fireAndForget(this.store.told(this.id, kind), 'record that a list change reached the client');
  }

  /** Sends a message to the holder of the session's GET stream. */
  deliver(to: string, message: JsonRpcMessage, forwarded = false): void {
    this.send(to, forwarded ? { type: 'deliver', session: this.id, message, forwarded } : { type: 'deliver', session: this.id, message });
  }

  /** The instance that sent the request `id` answers, when it is another one (undefined: not ours to route). */
  askerOf(id: RequestId): string | undefined {
    if (typeof id !== 'string') return undefined;
    const dot = id.lastIndexOf('.');
    const instance = dot > 0 ? id.slice(0, dot) : undefined;
    return instance !== undefined && instance !== this.store.instanceId ? instance : undefined;
  }

  answer(to: string, message: JsonRpcResponse): void {
    this.send(to, { type: 'answer', session: this.id, message });
  }

  /** A message for the GET stream was stored here: whichever instance holds the stream reads it. */
  appended(): void {
    this.send(undefined, { type: 'appended', session: this.id });
  }

  /** A cancellation for a request this instance does not run: whoever runs it aborts it. */
  cancel(requestId: RequestId, reason: string): void {
    this.send(undefined, { type: 'cancel', session: this.id, requestId, reason });
  }

  /**
   * This instance's GET stream opened: it holds the stream now. The previous holder ends its
   * own, and every instance serving the session learns where its unsolicited messages go now.
   */
  streamOpened(): void {
    this.holder = this.store.instanceId;
    const held = this.store.hold(this.id).then((previous) => {
      if (previous !== undefined && previous !== this.store.instanceId) this.send(previous, { type: 'yield', session: this.id });
      this.send(undefined, { type: 'changed', session: this.id });
    });
    this.fireAndForget(held, 'record which instance holds the GET stream');
  }

  streamClosed(): void {
    if (this.holder === this.store.instanceId) this.holder = undefined;
    this.fireAndForget(this.store.unhold(this.id), 'record that the GET stream closed');
  }

  /**
   * The session ended here: its record goes, then every instance lets it go. Rejects when the
   * record could not be removed (reported here too: most callers do not wait).
   */
  end(): Promise<void> {
    if (!this.recorded) return Promise.resolve();
    const ending = this.store.remove(this.id).then(() => {
      this.send(undefined, { type: 'ended', session: this.id });
    });
    this.fireAndForget(ending, 'remove the ended session');
    return ending;
  }

  /**
   * Tells the GET stream's holder, and resolves once the signal is published (never rejects: a
   * failure is reported). Answered after it, the client's next step (a resource updated
   * anywhere, say) reaches a Redis that already carries the signal: one Redis or a Sentinel
   * primary hands both to the holder in that order.
   */
  private tellHolder(change: { logLevel?: LoggingLevel; subscribed?: string; unsubscribed?: string }): Promise<void> {
    const holder = this.remoteHolder;
    return holder === undefined ? Promise.resolve() : this.send(holder, { type: 'changed', session: this.id, ...change });
  }

  private send(to: string | undefined, signal: SessionSignal): Promise<void> {
    const sent = this.store.signal(to, signal);
    this.fireAndForget(sent, `tell ${to === undefined ? 'every instance' : `instance ${to}`} (${signal.type})`);
    return sent.then(
      () => undefined,
      () => undefined,
    );
  }

  /** What nobody waits for fails with the store: reported with what it was for, as the server's error. */
  private fireAndForget(p: Promise<unknown>, what: string): void {
    p.catch((cause: unknown) => {
      const error = new Error(`Shared session ${this.id}: could not ${what}: the shared session store is unavailable`);
      error.cause = cause;
      this.reportError(error);
    });
  }
}
