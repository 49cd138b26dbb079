/**
 * The handle server code acts on a legacy session with (`SessionHandle`, context.ts): one per
 * session, made when first asked for, so the many sessions nobody acts on cost nothing. What it
 * sends goes on the session's host (stdout, the GET stream); its asks are the session's own
 * server-to-client requests, checked like a request's (session-asker.ts, asking.ts).
 */
import { JanusError } from '../../protocol/errors.js';
import { notificationMessage } from '../../jsonrpc/envelope.js';
import { revision } from '../../protocol/revisions.js';
import { LATEST_LEGACY_VERSION, type LegacyVersion } from '../../protocol/versions.js';
import type { CreateMessageParams, CreateMessageResult, ElicitResult, LoggingLevel, Root } from '../../protocol/types.js';
import { askForm, askRoots, askSample, askUrl } from '../asking.js';
import { logMessage } from '../call.js';
import type { AskOptions, ClientView, ElicitAnswer, ElicitFormRequest, ElicitUrlRequest, SessionHandle } from '../context.js';
import type { JsonSchemaObject, Parsed, StandardSchema } from '../schema/types.js';
import type { TransportKind } from '../transport-seam.js';
import { SessionAsker } from './session-asker.js';
import type { Session } from './session.js';

/** The session's handle (the same object every time). */
export function handleOf(session: Session): SessionHandle {
  return (session.handle ??= new LegacySessionHandle(session));
}

class LegacySessionHandle implements SessionHandle {
  private readonly asker: SessionAsker;
  private view: ClientView | undefined;
  private userState: Record<string, unknown> | undefined;

  constructor(private readonly session: Session) {
    this.asker = new SessionAsker(session, undefined, undefined);
  }

  get id(): string {
    return this.session.id;
  }

  get protocolVersion(): LegacyVersion {
    return this.session.protocolVersion ?? LATEST_LEGACY_VERSION;
  }

  get client(): ClientView {
    // `initialize` sets both once; a handle exists only after it.
    return (this.view ??= { info: this.session.clientInfo, capabilities: this.session.clientCapabilities });
  }

  get transport(): TransportKind {
    return this.session.transport ?? 'memory';
  }

  get closed(): boolean {
    return this.session.closed;
  }

  get state(): Record<string, unknown> {
    return (this.userState ??= {});
  }

  notify(method: string, params?: Record<string, unknown>): void {
    this.assertOpen(method);
    const v = this.protocolVersion;
    if (!revision(v).methods.serverNotifications.has(method)) {
      throw new JanusError('PROTOCOL', `${method} is not a server notification of protocol ${v} (session ${this.id})`);
    }
    this.session.sendUnsolicited(notificationMessage(method, params));
  }

  log(level: LoggingLevel, data: unknown, logger?: string): void {
    // Like ctx.log after its request ended: nobody is left to read it.
    if (this.session.closed) return;
    // Without logging/setLevel the server may log at any level (2025-11-25 logging.mdx).
    const message = logMessage(this.session.logLevel ?? 'debug', level, data, logger);
    if (message !== undefined) this.session.sendUnsolicited(message);
  }

  async ping(options?: { timeoutMs?: number }): Promise<void> {
    this.assertOpen('ping');
    if (!revision(this.protocolVersion).methods.serverRequests.has('ping')) {
      throw new JanusError('PROTOCOL', `ping does not exist in protocol ${this.protocolVersion}`);
    }
    await this.session.request('ping', {}, undefined, undefined, options?.timeoutMs);
  }

  elicit<S extends StandardSchema>(request: ElicitFormRequest<S>, options?: AskOptions): Promise<ElicitAnswer<Parsed<S>>>;
  elicit(request: ElicitFormRequest, options?: AskOptions): Promise<ElicitResult>;
  elicit(
    request: ElicitFormRequest<StandardSchema | JsonSchemaObject>,
    options?: AskOptions,
  ): Promise<ElicitResult | ElicitAnswer<unknown>> {
    return askForm(this.asker, request, options);
  }

  elicitUrl(request: ElicitUrlRequest, options?: AskOptions): Promise<ElicitResult> {
    return askUrl(this.asker, this.protocolVersion, 'legacy', request, options, 'this session');
  }

  sample(request: CreateMessageParams, options?: AskOptions): Promise<CreateMessageResult> {
    return askSample(this.asker, request, options);
  }

  roots(options?: AskOptions): Promise<Root[]> {
    return askRoots(this.asker, options);
  }

  close(): void {
    this.session.close();
  }

  private assertOpen(what: string): void {
    if (this.session.closed) throw new JanusError('TRANSPORT_CLOSED', `${what}: session ${this.id} is closed`);
  }
}
