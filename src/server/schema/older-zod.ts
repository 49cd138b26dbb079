/**
 * JSON Schema for Zod schemas that predate Standard JSON Schema: Zod 4.0 and 4.1, and Zod
 * 3.25's `zod/v4`. They carry `~standard` (vendor "zod") and `_zod` but no
 * `~standard.jsonSchema`; their converter is `toJSONSchema` from `zod/v4/core`, loaded here
 * the first time such a schema is registered (registration is synchronous, so this is a
 * synchronous `require`), then cached.
 *
 * `janus-mcp/server` stays runtime-neutral: Node's module loader is reached through
 * `process.getBuiltinModule`, never a static `node:` import, and no Node type is named.
 */
import { builtinModule, requireFrom } from '../../protocol/builtin.js';

type JsonSchemaObject = Record<string, unknown>;

/** The part of `zod/v4/core` used here (the same in 3.25's `zod/v4`, 4.0 and 4.1). */
interface ZodCore {
  toJSONSchema(schema: object, params: Record<string, unknown>): JsonSchemaObject;
  readonly globalRegistry: { get(schema: object): object | undefined };
  readonly version?: ZodVersion;
}

interface ZodVersion {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
}

const FIX = 'upgrade to Zod 4.2 or later (its schemas implement Standard JSON Schema) or pass a raw JSON Schema object';

let loaded: { core: ZodCore } | { error: string } | undefined;

/** Is this a Zod 4 schema (Zod 4.x, or 3.25's `zod/v4`), whatever its version? */
export function isZod4(schema: object): boolean {
  const internals = (schema as { _zod?: unknown })._zod;
  return typeof internals === 'object' && internals !== null;
}

/**
 * Converts a Zod 4.0/4.1 (or 3.25 `zod/v4`) schema; throws an `Error` whose message says
 * what to do instead when `zod/v4/core` cannot be loaded or the conversion fails.
 */
export function olderZodToJsonSchema(schema: object, io: 'input' | 'output'): JsonSchemaObject {
  loaded ??= load();
  if ('error' in loaded) throw new Error(`${loaded.error}; ${FIX}`);
  const { core } = loaded;
  try {
    return core.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'throw', metadata: metadataOf(core) });
  } catch (e) {
    throw new Error(`${(e as Error).message}${versionHint(schema, core)}`, { cause: e });
  }
}

/**
 * Where `.describe()` and `.meta()` are looked up. Zod 4.0 and 3.25 keep them in a registry
 * per module instance (4.1 and later share one through `globalThis`), so a converter from
 * another copy of Zod would not see them. A classic schema's own `.meta()` reads its own
 * registry whichever copy converts; `zod/mini` schemas have no `.meta()` and rely on the
 * converter being the same instance as the user's (see `load`).
 */
function metadataOf(core: ZodCore): { get(schema: object): object | undefined } {
  return {
    get(schema) {
      const meta = (schema as { meta?: unknown }).meta;
      const own: unknown = typeof meta === 'function' ? meta.call(schema) : undefined;
      return typeof own === 'object' && own !== null ? own : core.globalRegistry.get(schema);
    },
  };
}

function versionHint(schema: object, core: ZodCore): string {
  const mine = (schema as { _zod?: { version?: ZodVersion } })._zod?.version;
  const theirs = core.version;
  if (!mine || !theirs || (mine.major === theirs.major && mine.minor === theirs.minor && mine.patch === theirs.patch)) return '';
  const v = (x: ZodVersion) => `${x.major}.${x.minor}.${x.patch}`;
  return ` (note: the schema is from Zod ${v(mine)}, converted by zod/v4/core of Zod ${v(theirs)}, another copy of Zod)`;
}

/**
 * Loads the ES module instance of `zod/v4/core` that the user's `import` gets: resolved with
 * `import.meta.resolve` (the "import" condition), then loaded with `require(esm)`
 * (Node 20.19+ and 22.12+), which returns the instance already in the ES module cache.
 * Where `require(esm)` is missing, the CommonJS build is the fallback: a separate instance,
 * so `zod/mini` schemas of Zod 4.0 and 3.25 lose their descriptions there (classic schemas
 * keep them through `metadataOf`).
 */
function load(): { core: ZodCore } | { error: string } {
  const require = requireFrom(import.meta.url);
  const nodeUrl = builtinModule<{ fileURLToPath(url: string): string }>('node:url');
  if (require === undefined || nodeUrl === undefined) {
    return {
      error:
        "this schema is from Zod 4.0/4.1 (or Zod 3.25's zod/v4), whose JSON Schema converter cannot be loaded on this runtime (no process.getBuiltinModule)",
    };
  }
  const { fileURLToPath } = nodeUrl;
  const resolve = (import.meta as { resolve?: (specifier: string) => string }).resolve;
  let esm: unknown;
  try {
    const url = resolve?.('zod/v4/core');
    if (url?.startsWith('file:')) esm = require(fileURLToPath(url));
  } catch {
    // Not resolvable as an ES module here, or no require(esm): try the CommonJS build.
  }
  if (isCore(esm)) return { core: esm };
  try {
    const cjs = require('zod/v4/core');
    if (isCore(cjs)) return { core: cjs };
    return { error: 'zod/v4/core has no toJSONSchema' };
  } catch (e) {
    return {
      error: `this schema is from Zod 4.0/4.1 (or Zod 3.25's zod/v4), and zod/v4/core cannot be loaded from janus-mcp: ${(e as Error).message.split('\n')[0]}`,
    };
  }
}

function isCore(m: unknown): m is ZodCore {
  const core = m as Partial<ZodCore> | undefined;
  return typeof core?.toJSONSchema === 'function' && typeof core.globalRegistry?.get === 'function';
}

/** @internal Tests only: the `zod/v4/core` module this process converts with (loading it if needed). */
export function loadedZodCore(): unknown {
  loaded ??= load();
  return 'core' in loaded ? loaded.core : undefined;
}
