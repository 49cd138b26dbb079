/**
 * The small adapter interface between the runtime-neutral handler and a runtime (Node's
 * req/res in node.ts, web `Request`/`Response` in fetch.ts). One object per HTTP request;
 * methods instead of callbacks so the Node adapter needs no per-request closures.
 */
import type { AuthInfo } from '../../server/index.js';

export type HeaderMap = Record<string, string>;

/** Told once when the client went away before the response was ended by us. */
export interface DisconnectListener {
  onDisconnect(ex: HttpExchange): void;
}

export type BodyResult =
  | { readonly kind: 'ok'; readonly text: string }
  /** Already decoded upstream (e.g. a body-parser middleware ran before us). */
  | { readonly kind: 'parsed'; readonly value: unknown }
  | { readonly kind: 'too-large' }
  /** `expireBody()` was called: the body did not arrive in time. */
  | { readonly kind: 'timeout' }
  | { readonly kind: 'aborted' };

export interface HttpExchange {
  /** Upper-case HTTP method. */
  readonly method: string;
  readonly pathname: string;
  /**
   * The path the client used, when a router in front cut a mount prefix off `pathname`
   * (Express and Connect keep the original in `req.originalUrl`). Where a URL is sent back to
   * the client (the HTTP+SSE endpoint event), this is the one that reaches us again.
   */
  readonly publicPathname: string;
  /** A query parameter of the request URL, or null. */
  query(name: string): string | null;
  /** A request header by lower-case name (repeated headers joined with `, `). */
  header(name: string): string | undefined;
  /**
   * Reads the body, refusing (without buffering it) anything over `limit` bytes. Answering 413
   * is the handler's job; after `too-large` the adapter makes sure the connection will close.
   */
  readBody(limit: number): Promise<BodyResult>;
  /**
   * Ends a `readBody` still running with `timeout` (the body deadline passed). Answering 408 is
   * the handler's job; the adapter makes sure the connection will close.
   */
  expireBody(): void;
  /** The client's address as the adapter knows it (Node: the socket's peer, or `clientAddress`), for per-client limits. */
  readonly clientAddress: string | undefined;
  /** The local port when the socket is bound to a loopback address (DNS-rebinding defaults). */
  readonly loopbackPort: number | undefined;
  /** Whether the request came over TLS (the scheme of the URL it reached, for the derived OAuth resource URL). */
  readonly secure: boolean;
  /** Set by the handler: who to tell when the client disconnects. */
  listener: DisconnectListener | undefined;
  /** Set by the handler when the `auth` option verified the request's access token. */
  auth: AuthInfo | undefined;
  /** False once the response was ended or the client went away. */
  readonly open: boolean;

  /** A complete response. Header names are lower-case. */
  respond(status: number, headers: HeaderMap, body?: string): void;
  /** Starts a streamed (SSE) response: status and headers go out with a first write in the same tick, or alone right after it. */
  startStream(status: number, headers: HeaderMap): void;
  /** Writes to a started stream; ignored once closed. */
  write(chunk: string): void;
  /** Ends a started stream (idempotent). */
  end(): void;
}
