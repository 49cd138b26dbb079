/**
 * The feature routes: the methods both eras answer alike, written once. Each says the
 * capability it needs, its era-neutral work (features/) and how its result is shaped for a
 * revision (shape.ts). Each era's table is derived from this one, adding only what that era
 * has of its own: the stateless era `server/discover` (modern/routes.ts); the handshake era
 * `initialize`, `ping`, subscriptions and the log level, and its tables before and after the
 * handshake (legacy/routes.ts). Which revision has which method is the revisions table's:
 * dispatch admits a request only where the request's revision has its method.
 */
import type { ClientRequestMethod } from '../protocol/methods.js';
import type { ProtocolVersion } from '../protocol/versions.js';
import type { Call } from './call.js';
import { cacheHintOf } from './features/operations.js';
import type { CacheHint } from './features/resources.js';
import type { ListKind } from './registry.js';
import type { ServerServices } from './services.js';
import {
  shapeCallToolResult,
  shapeGetPromptResult,
  shapePromptList,
  shapeReadResourceResult,
  shapeResourceList,
  shapeTemplateList,
  shapeToolList,
} from './shape.js';

/** A request's params as they came off the wire. */
export type Params = Record<string, unknown>;

/** A capability a route needs the server to declare, or it answers -32601. */
export type Capability = 'tools' | 'prompts' | 'resources' | 'completions' | 'logging';

/**
 * One method: `S` is what the era serves it with, `X` what the era adds per request (the
 * handshake era's session), `R` its era-neutral result.
 */
export interface Route<S, X = unknown, R extends object = object> {
  /** Answered -32601 unless the server declares this capability. */
  readonly need?: Capability;
  /** A list whose fetch clears the handshake era's "changed since last fetched" marker for it. */
  readonly lists?: ListKind;
  run(server: S, params: Params, ctx: Call, scope: X): R | Promise<R>;
  /** The result as revision `v` has it (the same object when nothing changes). */
  shape(v: ProtocolVersion, result: R): object;
  /** The result's own 2026-07-28 cache hint, over the configured one (a resource reader's). */
  hint?(result: R): CacheHint | undefined;
}

/** Ties a route's work to its shaping, so that each shaper gets the result of its own route. */
export const route = <S, X, R extends object>(r: Route<S, X, R>): Route<S, X> => r;

/** A result every revision has as it is. */
export const asIs = <R extends object>(_v: ProtocolVersion, result: R): R => result;

/** The feature routes, by method: every one is a client request of the catalogue. */
export const FEATURE_ROUTES: Readonly<Partial<Record<ClientRequestMethod, Route<ServerServices>>>> = {
  'tools/list': route({ need: 'tools', lists: 'tools', run: (s: ServerServices, p) => s.ops.listTools(p), shape: shapeToolList }),
  'tools/call': route({ need: 'tools', run: (s: ServerServices, p, ctx) => s.ops.callTool(p, ctx), shape: shapeCallToolResult }),
  'prompts/list': route({ need: 'prompts', lists: 'prompts', run: (s: ServerServices, p) => s.ops.listPrompts(p), shape: shapePromptList }),
  'prompts/get': route({ need: 'prompts', run: (s: ServerServices, p, ctx) => s.ops.getPrompt(p, ctx), shape: shapeGetPromptResult }),
  'resources/list': route({
    need: 'resources',
    lists: 'resources',
    run: (s: ServerServices, p) => s.ops.listResources(p),
    shape: shapeResourceList,
  }),
  'resources/templates/list': route({
    need: 'resources',
    lists: 'resources',
    run: (s: ServerServices, p) => s.ops.listTemplates(p),
    shape: shapeTemplateList,
  }),
  'resources/read': route({
    need: 'resources',
    run: (s: ServerServices, p, ctx) => s.ops.readResource(p, ctx),
    shape: shapeReadResourceResult,
    hint: cacheHintOf,
  }),
  'completion/complete': route({ need: 'completions', run: (s: ServerServices, p, ctx) => s.ops.complete(p, ctx), shape: asIs }),
};

/** The feature routes as a map, to derive an era's table from (`new Map([...featureRoutes(), ...own])`). */
export function featureRoutes(): Array<[string, Route<ServerServices>]> {
  return Object.entries(FEATURE_ROUTES).filter((e): e is [string, Route<ServerServices>] => e[1] !== undefined);
}
