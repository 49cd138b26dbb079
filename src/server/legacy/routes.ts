/**
 * The handshake era's route tables. The handshake swaps tables instead of sprinkling checks
 * (lifecycle.mdx §Initialization): before `initialize` only it and `ping` exist; after it,
 * until `notifications/initialized`, only `ping`; then the session table, which is the feature
 * routes (routes.ts) plus what only this era has: `ping`, resource subscriptions and the log
 * level. A list served on a session clears its "changed since last fetched" marker.
 */
import { ErrorCode, McpError } from '../../protocol/errors.js';
import type { InitializeResult, Result } from '../../protocol/types.js';
import { isLegacyVersion, LATEST_LEGACY_VERSION, type LegacyVersion } from '../../protocol/versions.js';
import { isImplementation, isLoggingLevel, isObject, isUri, quoted } from '../guards.js';
import { asIs, featureRoutes, route, type Params, type Route } from '../routes.js';
import type { ServerServices } from '../services.js';
import { pick } from '../shape.js';
import type { ListKind } from '../registry.js';
import type { Inbound } from '../transport-seam.js';
import type { Session } from './session.js';

/** What a session's route is served with beyond its params and context: the session, and the channel the request came on. */
export interface SessionScope {
  readonly session: Session;
  readonly inbound: Inbound;
}

/** A route of a session. */
export type SessionRoute = Route<ServerServices, SessionScope>;

/** One phase of a session: its routes, and what any other method the era knows is answered. */
export interface Phase {
  readonly routes: ReadonlyMap<string, SessionRoute>;
  /** Why a request of the era that this phase has no route for is refused (-32600). */
  readonly refusal: string;
}

const EMPTY: Result = Object.freeze({});

const ping: SessionRoute = route({ run: () => EMPTY, shape: asIs });

/** lifecycle.mdx §Initialization: the handshake's answer, and the session's negotiated revision and client. */
function initialize(server: ServerServices, session: Session, params: Params): InitializeResult {
  const requested = params.protocolVersion;
  if (typeof requested !== 'string') throw new McpError(ErrorCode.InvalidParams, 'initialize needs params.protocolVersion');
  // lifecycle.mdx §Version Negotiation: agree to a supported version, else offer our latest
  // handshake revision. 2026-07-28 is never negotiated here: it has no handshake.
  const version: LegacyVersion = isLegacyVersion(requested) ? requested : LATEST_LEGACY_VERSION;
  session.protocolVersion = version;
  session.clientInfo = isImplementation(params.clientInfo) ? params.clientInfo : undefined;
  session.clientCapabilities = isObject(params.capabilities) ? params.capabilities : {};
  const result: InitializeResult = {
    protocolVersion: version,
    capabilities: server.capabilities(version),
    serverInfo: pick('Implementation', version, server.info),
  };
  if (server.instructions !== undefined) result.instructions = server.instructions;
  return result;
}

const handshake: SessionRoute = route({
  run: (server: ServerServices, params, _ctx, { session, inbound }: SessionScope) => {
    session.transport = inbound.transport;
    session.principal = inbound.principal;
    const result = initialize(server, session, params);
    const recorded = session.opened();
    return recorded === undefined ? result : recorded.then(() => result);
  },
  shape: asIs,
});

const alreadyInitialized: SessionRoute = route({
  run: () => {
    throw new McpError(ErrorCode.InvalidRequest, 'Session already initialized');
  },
  shape: asIs,
});

function subscription(add: boolean): SessionRoute {
  return route({
    need: 'resources',
    run: async (server: ServerServices, params, _ctx, { session }: SessionScope) => {
      const uri = params.uri;
      if (!isUri(uri)) throw new McpError(ErrorCode.InvalidParams, 'uri must be a URI (RFC 3986)');
      // A session holds its subscriptions for its lifetime: as many as one listen stream may.
      if (add) await session.subscribe(uri, server.limits.maxListenUris);
      else await session.unsubscribe(uri);
      return EMPTY;
    },
    shape: asIs,
  });
}

const setLevel: SessionRoute = route({
  need: 'logging',
  run: (_server: ServerServices, params, _ctx, { session }: SessionScope) => {
    if (!isLoggingLevel(params.level)) throw new McpError(ErrorCode.InvalidParams, `Invalid log level: ${quoted(params.level)}`);
    const saved = session.setLogLevel(params.level);
    return saved === undefined ? EMPTY : saved.then(() => EMPTY);
  },
  shape: asIs,
});

/** A list was served: the session's "changed since last fetched" marker for it is cleared. */
function fetched<R>(session: Session, kind: ListKind, result: R | Promise<R>): R | Promise<R> {
  if (!(result instanceof Promise)) {
    const saved = session.listFetched(kind);
    return saved === undefined ? result : saved.then(() => result);
  }
  return result.then(async (r) => {
    await session.listFetched(kind);
    return r;
  });
}

/** A feature route as a session serves it. */
function onSession(r: Route<ServerServices>): SessionRoute {
  const kind = r.lists;
  if (kind === undefined) return r;
  return { ...r, run: (server, params, ctx, scope) => fetched(scope.session, kind, r.run(server, params, ctx, scope)) };
}

/** Before `initialize`. */
export const HANDSHAKE: Phase = {
  routes: new Map([
    ['initialize', handshake],
    ['ping', ping],
  ]),
  refusal: 'Session not initialized: send initialize first',
};

/** After `initialize`, until `notifications/initialized`. */
export const INITIALIZING: Phase = {
  routes: new Map([
    ['initialize', alreadyInitialized],
    ['ping', ping],
  ]),
  refusal: 'Session not initialized: send notifications/initialized first',
};

/** The initialized session. */
export const SESSION: Phase = {
  routes: new Map<string, SessionRoute>([
    ...featureRoutes().map(([method, r]): [string, SessionRoute] => [method, onSession(r)]),
    ['initialize', alreadyInitialized],
    ['ping', ping],
    ['resources/subscribe', subscription(true)],
    ['resources/unsubscribe', subscription(false)],
    ['logging/setLevel', setLevel],
  ]),
  refusal: 'Session closed',
};
