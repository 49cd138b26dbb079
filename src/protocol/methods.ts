/**
 * The method catalogue: every method some revision has, once, with what the layers above need
 * to know of it besides its name. Its params and result types ride on each entry as phantom
 * types, so the typed method maps of the server and the client (`ServerMethods`,
 * `ClientMethods`, the client's `ResultOf`) are derived from this data rather than written
 * again; the facts (`mcpName`, `asksClient`, `stream`, `cacheable`) are read where the
 * HTTP headers, the MRTR rounds, the listen stream and the cache hints are handled.
 *
 * Which revision has which method is the revisions table's (revisions.ts): its lists name
 * entries of this catalogue, and the compiler checks that they do.
 */
import type {
  CallToolResult,
  CompleteResult,
  CreateMessageResult,
  DiscoverResult,
  ElicitResult,
  GetPromptResult,
  InitializeResult,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListToolsResult,
  Meta,
  ReadResourceResult,
  Result,
  Root,
} from './types.js';

/** A request's params as they go on the wire: its own members and `_meta`. */
export type Params = Record<string, unknown> & { _meta?: Meta };

/** What the layers above read of a client request (a request the server answers). */
export interface RequestFacts {
  /**
   * The params field the 2026-07-28 `Mcp-Name` header mirrors (basic/transports/streamable-http.mdx
   * §Standard Request Headers).
   */
  readonly mcpName?: string;
  /**
   * The server may answer it with `input_required` (2026-07-28 basic/patterns/mrtr.mdx), and
   * its handler may ask the client in either era: its `requestState` is bound to `mcpName`'s value.
   */
  readonly asksClient?: true;
  /** Answered with a long-lived event stream rather than one result (basic/patterns/subscriptions.mdx). */
  readonly stream?: true;
  /** Its 2026-07-28 result carries a cache hint (`ttlMs`, `cacheScope`; server/utilities/caching.mdx). */
  readonly cacheable?: true;
}

/** A catalogue entry: facts, and the method's params and result types (phantom: never set). */
export interface RequestSpec<P, R> extends RequestFacts {
  readonly params?: P;
  readonly result?: R;
}

/**
 * A catalogue entry: `request<Params, Result>()(facts)`. Two steps so that the types are
 * given and the facts are inferred as written (`MethodsWith` reads them).
 */
function request<P extends Params, R>(): <F extends RequestFacts = Record<never, never>>(facts?: F) => RequestSpec<P, R> & F {
  return <F extends RequestFacts>(facts?: F) => Object.freeze({ ...facts }) as RequestSpec<P, R> & F;
}

type Paged = Params & { cursor?: string };

/** Requests a client sends and a server answers (the schemas' `ClientRequest` unions, all revisions). */
export const CLIENT_REQUESTS = {
  initialize: request<Params & { protocolVersion: string }, InitializeResult>()(),
  ping: request<Params, Result>()(),
  'server/discover': request<Params, DiscoverResult>()({ cacheable: true }),
  'subscriptions/listen': request<Params, Result>()({ stream: true }),
  'tools/list': request<Paged, ListToolsResult>()({ cacheable: true }),
  'tools/call': request<Params & { name: string; arguments?: Record<string, unknown> }, CallToolResult>()({
    mcpName: 'name',
    asksClient: true,
  }),
  'prompts/list': request<Paged, ListPromptsResult>()({ cacheable: true }),
  'prompts/get': request<Params & { name: string; arguments?: Record<string, string> }, GetPromptResult>()({
    mcpName: 'name',
    asksClient: true,
  }),
  'resources/list': request<Paged, ListResourcesResult>()({ cacheable: true }),
  'resources/templates/list': request<Paged, ListResourceTemplatesResult>()({ cacheable: true }),
  'resources/read': request<Params & { uri: string }, ReadResourceResult>()({ mcpName: 'uri', asksClient: true, cacheable: true }),
  'resources/subscribe': request<Params & { uri: string }, Result>()(),
  'resources/unsubscribe': request<Params & { uri: string }, Result>()(),
  'logging/setLevel': request<Params & { level: string }, Result>()(),
  'completion/complete': request<Params, CompleteResult>()(),
} as const;

/** Requests a server sends and a client answers (the schemas' `ServerRequest` unions). */
export const SERVER_REQUESTS = {
  ping: request<Params, Result>()(),
  'sampling/createMessage': request<Params, CreateMessageResult>()(),
  'roots/list': request<Params, Result & { roots: Root[] }>()(),
  'elicitation/create': request<Params, ElicitResult & Result>()(),
} as const;

/** Notifications a client sends (`ClientNotification`). */
export const CLIENT_NOTIFICATIONS = {
  'notifications/cancelled': {},
  'notifications/initialized': {},
  'notifications/progress': {},
  'notifications/roots/list_changed': {},
} as const;

/** Notifications a server sends (`ServerNotification`). */
export const SERVER_NOTIFICATIONS = {
  'notifications/cancelled': {},
  'notifications/progress': {},
  'notifications/message': {},
  'notifications/resources/list_changed': {},
  'notifications/resources/updated': {},
  'notifications/prompts/list_changed': {},
  'notifications/tools/list_changed': {},
  'notifications/elicitation/complete': {},
  'notifications/subscriptions/acknowledged': {},
} as const;

/** The name of a request a client sends, in any revision (`tools/call`, `server/discover`, …). */
export type ClientRequestMethod = keyof typeof CLIENT_REQUESTS;
/** The name of a request a server sends to the client, in any revision (`sampling/createMessage`, …). */
export type ServerRequestMethod = keyof typeof SERVER_REQUESTS;
/** The name of a notification a client sends, in any revision. */
export type ClientNotificationMethod = keyof typeof CLIENT_NOTIFICATIONS;
/** The name of a notification a server sends, in any revision. */
export type ServerNotificationMethod = keyof typeof SERVER_NOTIFICATIONS;

type SpecParams<S> = S extends RequestSpec<infer P, unknown> ? P : never;
type SpecResult<S> = S extends RequestSpec<Params, infer R> ? R : never;

/** Each client request's params and result, as the catalogue types them. */
export type ClientRequestTypes = {
  [M in ClientRequestMethod]: { params: SpecParams<(typeof CLIENT_REQUESTS)[M]>; result: SpecResult<(typeof CLIENT_REQUESTS)[M]> };
};

/** Each server request's params and result. */
export type ServerRequestTypes = {
  [M in ServerRequestMethod]: { params: SpecParams<(typeof SERVER_REQUESTS)[M]>; result: SpecResult<(typeof SERVER_REQUESTS)[M]> };
};

/** The client requests whose entry carries fact `F`. */
export type MethodsWith<F extends keyof RequestFacts> = {
  [M in ClientRequestMethod]: (typeof CLIENT_REQUESTS)[M] extends { readonly [K in F]: unknown } ? M : never;
}[ClientRequestMethod];

/** 2026-07-28 results that carry a cache hint, configurable per method (`createServer({ cache })`). */
export type CacheableMethod = MethodsWith<'cacheable'>;

const CLIENT_REQUEST_FACTS: ReadonlyMap<string, RequestFacts> = new Map(Object.entries(CLIENT_REQUESTS));

/** What the catalogue says of a client request; undefined for a method no revision has. */
export function requestFacts(method: string): RequestFacts | undefined {
  return CLIENT_REQUEST_FACTS.get(method);
}

/** Every client request of the catalogue, in its order. */
export const CLIENT_REQUEST_METHODS: readonly ClientRequestMethod[] = Object.freeze(Object.keys(CLIENT_REQUESTS) as ClientRequestMethod[]);
