/**
 * The seam the handshake era's half of the endpoint (legacy/endpoint.ts) plugs into the
 * endpoint (handler.ts) with: what the endpoint hands it, and what it gives the endpoint. The
 * one registering file (eras.ts) names the half; a build without the era has none.
 */
import type { ServerCore } from '../../spi/index.js';
import type { HttpExchange } from './exchange.js';
import type { Accepts } from './guards.js';
import type { Expect, PostResponder, ResponderHost } from './responder.js';

/** What the endpoint gives its handshake-era half. */
export interface EndpointHost extends ResponderHost {
  readonly core: ServerCore;
  /** With the `auth` option: a session belongs to whoever opened it. */
  readonly authenticates: boolean;
  /** Runs a payload through the core, then lets the responder conclude. Never rejects. */
  dispatch(ex: HttpExchange, responder: PostResponder, payload: unknown): Promise<void> | undefined;
  /** A step that may reject, made one that does not: a failure is reported and answered 500. */
  guarded(ex: HttpExchange, work: Promise<void>): Promise<void>;
}

/** The handshake era's half of the endpoint: its POSTs, GET streams, DELETE and the 2024-11-05 transport. */
export interface LegacyHalf {
  /** A POST to the 2024-11-05 endpoint with an unknown session: answered 404 before its body is read (true). */
  unknownSseSession(ex: HttpExchange): boolean;
  /** Whether the POST goes to the 2024-11-05 endpoint (everything goes down its stream: no Accept check). */
  isSsePost(ex: HttpExchange): boolean;
  /** A POST to the 2024-11-05 endpoint, taken (true); false when it is not one. */
  postSse(ex: HttpExchange, payload: unknown): boolean;
  /** An `initialize` POST: a new session. */
  handshake(ex: HttpExchange, payload: unknown, accepts: Accepts, expect: Expect): Promise<void>;
  /** A POST of a session. */
  post(ex: HttpExchange, payload: unknown, accepts: Accepts, expect: Expect): Promise<void> | undefined;
  /** GET: a session's stream, or the 2024-11-05 one; `notAPage` answers a GET that is no client's. */
  get(ex: HttpExchange, notAPage: () => void): Promise<void>;
  delete(ex: HttpExchange): Promise<void>;
  /** Ends (or, in a cluster, lets go of) every session. */
  close(): void;
}

/** Makes the half for one endpoint, from the options as given; undefined where the server does not serve the era. */
export type LegacyHalfFactory = (host: EndpointHost, options: object) => LegacyHalf | undefined;
