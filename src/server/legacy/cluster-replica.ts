/**
 * A session any instance of a cluster serves: its state is taken from the shared record before
 * each request (the store answers from its copy when it may: the same record object, applied
 * once) and written through (shared-session.ts), its unsolicited messages go to
 * whichever instance holds its GET stream, and answers and cancellations find the instance they
 * belong to. What the other instances signal about it arrives here (`heard`).
 */
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcResponse, RequestId } from '../../protocol/jsonrpc.js';
import type { LoggingLevel } from '../../protocol/types.js';
import { isLegacyVersion } from '../../protocol/versions.js';
import type { ListKind } from '../registry.js';
import { announcementsOf, type Replica } from './replica.js';
import type { Session } from './session.js';
import type { NewSessionRecord, SessionRecord, SessionSignal } from './session-store.js';
import type { SharedSession } from './shared-session.js';
import type { SharedSessionLink } from './transport-seam.js';

type Change = { readonly logLevel?: LoggingLevel; readonly subscribed?: string; readonly unsubscribed?: string };

export class ClusterReplica implements Replica, SharedSessionLink {
  /** Unsolicited messages waiting to learn where the GET stream is, in order. */
  private outbox: Promise<unknown> = Promise.resolve();
  /** The record applied last: a store answering from its copy gives the same object again, with nothing new to apply. */
  private applied: SessionRecord | undefined;

  constructor(
    private readonly session: Session,
    private readonly shared: SharedSession,
    private readonly reportError: (error: unknown) => void,
  ) {}

  get link(): SharedSessionLink {
    return this;
  }

  get handsOver(): boolean {
    return true;
  }

  /** The record exists before the client learns the session id. */
  opened(record: NewSessionRecord): Promise<void> {
    return this.shared.create(record);
  }

  /** Ready here only once ready everywhere (a failed write leaves the client to send it again). */
  initialized(): Promise<void> {
    return this.shared.update({ initialized: true });
  }

  logLevelSet(level: LoggingLevel): Promise<void> {
    return this.shared.update({ logLevel: level });
  }

  /** Counted in the store, atomically: another instance may have added one. */
  subscribe(uri: string, max: number): Promise<boolean> {
    return this.shared.subscribe(uri, max);
  }

  unsubscribe(uri: string): Promise<void> {
    return this.shared.unsubscribe(uri);
  }

  /** On this instance's GET stream, or another's. */
  get reachable(): boolean {
    return this.session.host.connected !== false || this.shared.remoteHolder !== undefined;
  }

  /** What this instance knows of another's GET stream may be old. */
  lookAgain(): Promise<unknown> {
    return this.refresh();
  }

  /** The id names this instance, so that an answer POSTed to another finds its way here. */
  requestId(n: number): RequestId {
    return `${this.shared.idPrefix}${n}`;
  }

  /**
   * On this instance's GET stream when it holds it, else on the instance's that does, else to
   * the host (which keeps it for a resumption of the GET stream, or drops it).
   */
  sendUnsolicited(message: JsonRpcMessage): void {
    const host = this.session.host;
    // A host that keeps messages where the stream's holder reads them needs no routing.
    if (host.connected !== false || host.keeps === true) {
      host.send(message);
      return;
    }
    // The GET stream is not here: where it is now is in the store (in order, one message after the other).
    this.outbox = this.outbox
      .then(() => this.refresh())
      .then(() => {
        const holder = this.shared.remoteHolder;
        if (holder !== undefined) this.shared.deliver(holder, message);
        else if (!this.session.closed) host.send(message);
      })
      .catch(() => undefined); // a host that cannot deliver drops the message (its transport reports why)
  }

  /** Pings go out on the GET stream: the instance holding it pings. */
  get pingsHere(): boolean {
    return this.session.host.connected !== false;
  }

  /** Only the instance holding the GET stream tells it (the others would tell it again, and the cluster counts changes). */
  get toldHere(): boolean {
    return this.session.host.connected !== false;
  }

  /** Only the holder calls it, live: the cluster counts what the client was told. */
  listChanged(kind: ListKind, live: boolean): void {
    if (live) this.shared.told(kind);
  }

  listFetched(kind: ListKind): Promise<void> {
    return this.shared.fetched(kind);
  }

  pendingAnnouncements(): readonly JsonRpcNotification[] {
    return announcementsOf(this.shared.unannounced);
  }

  answerElsewhere(response: JsonRpcResponse): boolean {
    const id = response.id;
    const asker = id === null || id === undefined ? undefined : this.shared.askerOf(id);
    if (asker === undefined) return false;
    this.shared.answer(asker, response);
    return true;
  }

  cancelElsewhere(requestId: RequestId, reason: string): void {
    this.shared.cancel(requestId, reason);
  }

  /** Its record goes and every instance lets it go. */
  end(): Promise<void> {
    return this.shared.end();
  }

  /**
   * Takes what the shared record says, without the lifecycle's hooks (they ran where it
   * happened). False when the record is not one this server can serve.
   */
  apply(record: SessionRecord): boolean {
    if (record === this.applied) return true;
    if (!isLegacyVersion(record.protocolVersion)) return false;
    const session = this.session;
    session.protocolVersion = record.protocolVersion;
    session.clientInfo = record.clientInfo;
    session.clientCapabilities = record.clientCapabilities;
    session.principal = record.principal;
    session.logLevel = record.logLevel;
    session.subscriptions = record.subscriptions.length > 0 ? new Set(record.subscriptions) : undefined;
    this.shared.take(record);
    if (record.initialized) session.initializedElsewhere();
    this.applied = record;
    return true;
  }

  /** A session another instance opened, loaded here: false when it no longer exists. Rejects when the store cannot be reached. */
  async restore(): Promise<boolean> {
    const record = await this.shared.load();
    return record !== undefined && this.apply(record);
  }

  // SharedSessionLink: what the session's transport does to keep it in step.

  async refresh(): Promise<'ok' | 'gone' | 'unavailable'> {
    if (this.session.closed) return 'gone';
    let record: SessionRecord | undefined;
    try {
      record = await this.shared.load();
    } catch {
      return 'unavailable';
    }
    if (record === undefined || !this.apply(record)) {
      this.session.release();
      return 'gone';
    }
    return this.session.closed ? 'gone' : 'ok';
  }

  /** The GET stream is here now: so are the server's pings of the session (they go out on it). */
  streamOpened(): void {
    this.shared.streamOpened();
    this.session.streamHeld();
  }

  streamClosed(): void {
    this.shared.streamClosed();
  }

  appended(): void {
    this.shared.appended();
  }

  /** What another instance says about the session. */
  heard(signal: SessionSignal): void {
    const session = this.session;
    if (session.closed) return;
    switch (signal.type) {
      case 'deliver':
        this.deliverHere(signal.message, signal.forwarded === true).catch(this.reportError);
        break;
      case 'answer':
        session.settleHere(signal.message);
        break;
      case 'cancel':
        session.cancelHere(signal.requestId, signal.reason);
        break;
      case 'changed':
        this.applyChange(signal)?.catch(this.reportError);
        break;
      case 'appended':
        session.host.pull?.();
        break;
      case 'yield':
        session.host.yieldStream?.();
        break;
      case 'ended':
        session.release();
        break;
    }
  }

  /**
   * Another instance sent a message for the GET stream it believes this one holds. One that no
   * longer does looks again and passes it on, once, to the holder it finds; with none, the host
   * keeps it for a resumption of the stream.
   */
  private async deliverHere(message: JsonRpcMessage, forwarded: boolean): Promise<void> {
    if (this.session.host.connected === false && !forwarded) {
      await this.refresh();
      const holder = this.shared.remoteHolder;
      if (holder !== undefined) return this.shared.deliver(holder, message, true);
    }
    if (!this.session.closed) this.session.host.send(message);
  }

  /**
   * A change made through another instance, applied at once (it arrives in order with the
   * backplane's events, which read it); with nothing named, the record is reloaded.
   */
  private applyChange(change: Change): Promise<unknown> | undefined {
    if (change.logLevel === undefined && change.subscribed === undefined && change.unsubscribed === undefined) return this.refresh();
    // Applied here ahead of the record: the next load applies the record in full.
    this.applied = undefined;
    const session = this.session;
    if (change.logLevel !== undefined) session.logLevel = change.logLevel;
    if (change.subscribed !== undefined) (session.subscriptions ??= new Set()).add(change.subscribed);
    if (change.unsubscribed !== undefined) session.subscriptions?.delete(change.unsubscribed);
    return undefined;
  }
}
