/**
 * The stateless era's route table, derived from the feature routes (routes.ts) plus what only
 * 2026-07-28 has (`server/discover`; `subscriptions/listen` opens a stream, listen.ts), and
 * how its results go out: shaped for the revision, with `resultType`, the server's info in
 * `_meta` and, where the method is cacheable, its cache hint.
 */
import { asWireResult } from '../../protocol/jsonrpc.js';
import { META } from '../../protocol/meta.js';
import { requestFacts, type CacheableMethod } from '../../protocol/methods.js';
import type { DiscoverResult, Meta, Result } from '../../protocol/types.js';
import type { ModernVersion, ProtocolVersion } from '../../protocol/versions.js';
import { copy, extend } from '../../protocol/extend.js';
import type { CacheHint } from '../features/resources.js';
import { isObject } from '../guards.js';
import { asIs, featureRoutes, route, type Params, type Route } from '../routes.js';
import type { ServerServices } from '../services.js';
import type { ListenServer } from './listen.js';
import type { RoundServer } from './input-required.js';

/** What the modern dispatcher reads from the server, beyond what both eras do. */
export interface ModernDeps extends ServerServices, ListenServer, RoundServer {
  /** `{ serverInfo }` as a result `_meta`, built once. */
  readonly infoMeta: Meta;
  /** The configured cache hint of a cacheable result (server/utilities/caching.mdx). */
  cacheHint(method: CacheableMethod): CacheHint;
  /** The revisions this server speaks, newest first (`server/discover`, -32022's `supported`). */
  readonly supportedVersions: readonly string[];
}

/** A route of the modern table, with what the catalogue says of its method, read once. */
export interface ModernRoute {
  readonly method: string;
  readonly route: Route<ModernDeps>;
  /**
   * For the methods that may answer `input_required` (the catalogue's `asksClient`): the
   * params field its `requestState` is bound to (mrtr.mdx §Server Requirements item 5).
   */
  readonly target: string | undefined;
  /** Cacheable (the catalogue's `cacheable`): its result carries a hint. */
  readonly cacheable: boolean;
}

function discover(server: ModernDeps, v: ProtocolVersion): DiscoverResult {
  const result: DiscoverResult = { supportedVersions: [...server.supportedVersions], capabilities: server.capabilities(v) };
  if (server.instructions !== undefined) result.instructions = server.instructions;
  return result;
}

const OWN: Array<[string, Route<ModernDeps>]> = [
  ['server/discover', route({ run: (server: ModernDeps, _params: Params, ctx) => discover(server, ctx.protocolVersion), shape: asIs })],
];

function modernRoute(method: string, r: Route<ModernDeps>): ModernRoute {
  const facts = requestFacts(method);
  return { method, route: r, target: facts?.asksClient ? facts.mcpName : undefined, cacheable: facts?.cacheable === true };
}

/** The feature routes and the era's own, by method. */
export const MODERN_ROUTES: ReadonlyMap<string, ModernRoute> = new Map(
  [...featureRoutes(), ...OWN].map(([method, r]) => [method, modernRoute(method, r)]),
);

/**
 * A copy of a result (the handler's may be a shared object) with serverInfo in `_meta`
 * (basic/index.mdx §_meta: SHOULD be on every result), its cache hint and its resultType
 * when given.
 */
export function withServerInfo(server: ModernDeps, result: Result, hint?: CacheHint, resultType?: 'complete'): Result {
  const meta = result._meta;
  const _meta = isObject(meta) ? extend(meta, { [META.serverInfo]: server.info }) : server.infoMeta;
  // A copy given its keys one by one: no object made for the keys alone (extend.ts on why no spread).
  const out: Record<string, unknown> = copy(result);
  if (hint !== undefined) {
    out.ttlMs = hint.ttlMs;
    out.cacheScope = hint.scope;
  }
  out._meta = _meta;
  if (resultType) out.resultType = resultType;
  return out as Result;
}

/** A route's era-neutral result as 2026-07-28 sends it. */
export function completed(server: ModernDeps, entry: ModernRoute, v: ModernVersion, result: object): Result {
  const shaped = asWireResult(entry.route.shape(v, result));
  const hint = entry.cacheable ? (entry.route.hint?.(result) ?? server.cacheHint(entry.method as CacheableMethod)) : undefined;
  return withServerInfo(server, shaped, hint, shaped.resultType === 'input_required' ? undefined : 'complete');
}
