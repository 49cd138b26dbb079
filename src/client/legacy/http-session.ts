/**
 * A handshake-era session on a Streamable HTTP channel (2025-11-25 basic/transports.mdx
 * §Session Management): the `Mcp-Session-Id` the InitializeResult reply assigns, sent on every
 * later request; 404 to a request that carried it means the session expired (the client
 * initializes again); DELETE ends it. `MCP-Protocol-Version` from 2025-06-18 on; the standalone
 * GET stream (standalone-stream.ts) belongs to the session it was opened in.
 */
import type { JsonRpcRequest } from '../../protocol/jsonrpc.js';
import { revision } from '../../protocol/revisions.js';
import type { LegacyVersion } from '../../protocol/versions.js';
import { ChannelError } from '../channel.js';
import { discard, HttpChannelError, isModernRequest, readText, statusError } from '../channels/http-common.js';
import type { HttpSession, HttpSessionHost } from '../channels/http-session.js';
import { listenStandalone } from './standalone-stream.js';

function sessionExpired(body: string, headers: Headers): HttpChannelError {
  return new HttpChannelError('the session expired (HTTP 404): initialize again', 404, body, headers);
}

export class StreamableHttpSession implements HttpSession {
  private session: string | undefined;
  /**
   * The server forgot our session (404) and no initialize has replaced it yet: a legacy request
   * made meanwhile fails as expired too, so it waits for the new session and is retried, instead
   * of going out without `Mcp-Session-Id` (which the server refuses).
   */
  private lost = false;
  private version: LegacyVersion | undefined;
  private standalone: AbortController | undefined;

  constructor(private readonly host: HttpSessionHost) {}

  get id(): string | undefined {
    return this.session;
  }

  admit(request: JsonRpcRequest): void {
    if (this.lost && request.method !== 'initialize' && !isModernRequest(request)) throw sessionExpired('', new Headers());
  }

  stamp(headers: Headers, session = this.session): void {
    if (session !== undefined) headers.set('mcp-session-id', session);
    // `MCP-Protocol-Version` exists from 2025-06-18 on (2025-06-18 changelog); 2025-03-26 had none.
    if (this.version !== undefined && revision(this.version).transport.versionHeader) headers.set('mcp-protocol-version', this.version);
  }

  replied(request: JsonRpcRequest, res: Response): void {
    const initialize = request.method === 'initialize';
    if (initialize) this.lost = false;
    const session = res.headers.get('mcp-session-id');
    if (session && (initialize || this.session === undefined)) {
      if (this.session !== session) this.endStream();
      this.session = session;
    }
  }

  async expired(sent: string, res: Response): Promise<Error> {
    if (this.session === sent) {
      this.session = undefined;
      this.lost = true;
      this.endStream();
    }
    return sessionExpired(await readText(res, this.host.maxBytes), res.headers);
  }

  setVersion(version: LegacyVersion): void {
    this.version = version;
  }

  /**
   * It belongs to the session it was opened in and carries its id on every reconnect; a new or
   * expired session ends it (a GET without the id would open the deprecated HTTP+SSE transport
   * instead, and nothing of the session would come).
   */
  openEventStream(): void {
    const host = this.host;
    if (host.closed || this.standalone) return;
    const controller = new AbortController();
    this.standalone = controller;
    host.track(controller);
    void listenStandalone(host.streams, controller, this.session)
      .catch(() => {})
      .finally(() => {
        host.untrack(controller);
        if (this.standalone === controller) this.standalone = undefined;
      });
  }

  /** §Session Management 5: DELETE ends the session; 405 or a failure is fine. */
  async end(): Promise<void> {
    this.standalone = undefined;
    const session = this.session;
    this.session = undefined;
    if (session === undefined) return;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.host.deleteTimeoutMs);
    try {
      const headers = this.host.headers('delete');
      this.stamp(headers, session);
      const res = await this.host.fetch({ method: 'DELETE', headers, signal: controller.signal }, 'DELETE');
      // 405 (the server does not let clients end sessions) and 404 (it is gone already) are fine; another refusal is worth a line.
      if (res.ok || res.status === 404 || res.status === 405) discard(res);
      else
        this.host.streams.warn(
          `${(await statusError('DELETE (ending the session)', this.host.streams.url, res, this.host.maxBytes)).message}; the session may stay open on the server until it expires`,
        );
    } catch {
      // The server may be gone already; nothing more to end.
    } finally {
      clearTimeout(timer);
    }
  }

  /** The session is over (expired, or replaced by a new initialize): its standalone stream goes with it. */
  private endStream(): void {
    const stream = this.standalone;
    if (!stream) return;
    this.standalone = undefined;
    this.host.untrack(stream);
    stream.abort(new ChannelError('the session ended'));
  }
}
