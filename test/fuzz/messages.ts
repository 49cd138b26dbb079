/**
 * JSON-RPC messages as a fuzzing client builds them: envelopes, the 2026-07-28 `_meta` envelope
 * (valid, or with one thing wrong), and plausible params for every real method of either era,
 * with hostile values mixed in (values.ts). A `Frame` is what one run sends per line or POST.
 */
import fc from 'fast-check';
import { META_CAPS, META_CLIENT, META_LOG, META_VERSION, MODERN } from '../support/common.js';
import {
  FAST_TOOLS,
  freshId,
  hostileKey,
  hostileValue,
  LEGACY_METHODS,
  lookupName,
  MODERN_METHODS,
  notAnObject,
  PROMPTS,
  PROTOTYPE_KEYS,
  RESOURCES,
  SLOW_TOOLS,
  weighted,
} from './values.js';
import { Entries, FreshId, IdRef, RawJson, type WireValue } from './wire-text.js';

export type Params = Record<string, WireValue>;

export function request(method: WireValue, params: WireValue | undefined, id: WireValue): WireValue {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}
export function notification(method: WireValue, params: WireValue | undefined): WireValue {
  return params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
}

export const capabilities: fc.Arbitrary<WireValue> = weighted<WireValue>(
  [4, fc.constant({})],
  [
    3,
    fc.subarray(['elicitation', 'sampling', 'roots']).map((names) => {
      const caps: Record<string, WireValue> = {};
      for (const n of names) caps[n] = n === 'elicitation' ? { form: {}, url: {} } : {};
      return caps;
    }),
  ],
  [1, fc.array(fc.tuple(hostileKey, hostileValue), { maxLength: 3 }).map((e) => new Entries(e))],
);

/** A valid 2026-07-28 `_meta` (basic/index.mdx §Per-request protocol fields), sometimes with extras. */
export const modernMeta: fc.Arbitrary<Params> = fc
  .record(
    {
      caps: capabilities,
      clientInfo: weighted<WireValue | undefined>(
        [4, fc.constant({ name: 'janus-fuzz', version: '1.0.0' })],
        [1, fc.constant(undefined)],
        [1, hostileValue],
      ),
      logLevel: weighted<WireValue | undefined>([4, fc.constant(undefined)], [1, fc.constantFrom('debug', 'info', 'emergency')]),
      progressToken: weighted<WireValue | undefined>(
        [4, fc.constant(undefined)],
        [1, fc.oneof(fc.integer(), fc.string({ maxLength: 6 }))],
        [1, hostileValue],
      ),
      extra: weighted<Array<[string, WireValue]>>(
        [5, fc.constant([])],
        [1, fc.array(fc.tuple(hostileKey, hostileValue), { maxLength: 2 })],
      ),
    },
    { requiredKeys: ['caps', 'extra'] },
  )
  .map(({ caps, clientInfo, logLevel, progressToken, extra }) => {
    const meta: Params = { [META_VERSION]: MODERN, [META_CAPS]: caps };
    if (clientInfo !== undefined) meta[META_CLIENT] = clientInfo;
    if (logLevel !== undefined) meta[META_LOG] = logLevel;
    if (progressToken !== undefined) meta.progressToken = progressToken;
    for (const [k, v] of extra) if (!(k in meta)) meta[k] = v;
    return meta;
  });

/** A 2026-07-28 `_meta` with one thing wrong: version or capabilities missing or mistyped, an unknown version, a bad log level. */
export const brokenModernMeta: fc.Arbitrary<WireValue> = fc
  .tuple(
    modernMeta,
    fc.constantFrom('no-version', 'version-type', 'unknown-version', 'no-caps', 'caps-type', 'log-level'),
    hostileValue,
    fc.constantFrom('2025-11-25', '2024-11-05', '2026-07-29', '2026-7-28', '', 'latest', 'x'),
  )
  .map(([meta, what, value, version]) => {
    const m: Params = { ...meta };
    if (what === 'no-version') delete m[META_VERSION];
    if (what === 'version-type') m[META_VERSION] = typeof value === 'string' ? 7 : value;
    if (what === 'unknown-version') m[META_VERSION] = version;
    if (what === 'no-caps') delete m[META_CAPS];
    if (what === 'caps-type') m[META_CAPS] = typeof value === 'object' && value !== null && !Array.isArray(value) ? 'x' : value;
    if (what === 'log-level') m[META_LOG] = typeof value === 'string' ? `${value}!` : value;
    return m;
  });

// ---------------------------------------------------------------------------------------------
// Params of the real methods: plausible shapes, with hostile values mixed in

export const toolName = (slowTools: boolean): fc.Arbitrary<WireValue> =>
  weighted<WireValue>(
    [6, fc.constantFrom(...FAST_TOOLS)],
    [slowTools ? 1 : 0, fc.constantFrom(...SLOW_TOOLS)],
    [2, lookupName],
    [1, hostileValue.filter((v) => typeof v !== 'string')],
  );

export const toolArguments: fc.Arbitrary<WireValue> = weighted<WireValue>(
  [3, fc.constant({})],
  [
    2,
    fc.record({
      prompt: hostileValue,
      message: hostileValue,
      region: weighted<WireValue>([2, fc.string({ maxLength: 8 })], [1, hostileValue]),
      name: hostileValue,
      email: fc.constant('a@example.com'),
    }),
  ],
  [2, fc.array(fc.tuple(hostileKey, hostileValue), { maxLength: 4 }).map((e) => new Entries(e))],
  [1, hostileValue],
);

export const mrtrExtras: fc.Arbitrary<Params> = weighted<Params>(
  [6, fc.constant({})],
  [
    2,
    fc
      .record(
        {
          inputResponses: weighted<WireValue>(
            [2, fc.array(fc.tuple(hostileKey, hostileValue), { maxLength: 3 }).map((e) => new Entries(e))],
            [1, hostileValue],
          ),
          requestState: weighted<WireValue>([2, fc.string({ maxLength: 40 })], [1, hostileValue]),
        },
        { requiredKeys: [] },
      )
      .map((r) => ({ ...r })),
  ],
);

export const completionParams: fc.Arbitrary<Params> = fc.record({
  ref: weighted<WireValue>(
    [3, fc.record({ type: fc.constant('ref/prompt'), name: weighted<WireValue>([3, fc.constantFrom(...PROMPTS)], [1, lookupName]) })],
    [
      2,
      fc.record({
        type: fc.constant('ref/resource'),
        uri: weighted<WireValue>([3, fc.constant('test://template/{id}/data')], [1, lookupName]),
      }),
    ],
    [1, hostileValue.filter((v) => typeof v !== 'string')],
  ),
  argument: weighted<WireValue>(
    [4, fc.record({ name: fc.constantFrom('arg1', 'arg2', 'id', 'resourceUri'), value: fc.string({ maxLength: 4 }) })],
    [
      1,
      fc.record({
        name: weighted<WireValue>([1, lookupName], [1, hostileValue.filter((v) => typeof v !== 'string')]),
        value: hostileValue,
      }),
    ],
    [1, hostileValue.filter((v) => typeof v !== 'string')],
  ),
});

/** Params of `method` (a real method of either era) without `_meta`. */
export function paramsOf(method: string, slowTools: boolean): fc.Arbitrary<Params> {
  switch (method) {
    case 'tools/call':
      return fc.tuple(toolName(slowTools), toolArguments, mrtrExtras).map(([name, args, extra]) => ({ name, arguments: args, ...extra }));
    case 'prompts/get':
      return fc
        .tuple(
          weighted<WireValue>([3, fc.constantFrom(...PROMPTS)], [1, lookupName]),
          weighted<WireValue>(
            [2, fc.record({ arg1: fc.string({ maxLength: 4 }), arg2: fc.string({ maxLength: 4 }), resourceUri: fc.constant('test://x') })],
            [1, fc.array(fc.tuple(hostileKey, hostileValue), { maxLength: 3 }).map((e) => new Entries(e))],
            [1, hostileValue],
          ),
          mrtrExtras,
        )
        .map(([name, args, extra]) => ({ name, arguments: args, ...extra }));
    case 'resources/read':
    case 'resources/subscribe':
    case 'resources/unsubscribe':
      return weighted<WireValue>(
        [3, fc.constantFrom(...RESOURCES)],
        [1, fc.stringMatching(/^[a-z0-9]{1,8}$/).map((id) => `test://template/${id}/data`)],
        [1, fc.constantFrom(...PROTOTYPE_KEYS, 'test://missing', 'file:///etc/passwd')],
        [1, hostileValue.filter((v) => typeof v !== 'string')],
      ).map((uri) => ({ uri }));
    case 'completion/complete':
      return completionParams;
    case 'logging/setLevel':
      return weighted<WireValue>([2, fc.constantFrom('debug', 'error', 'emergency')], [1, hostileValue]).map((level) => ({ level }));
    case 'tools/list':
    case 'prompts/list':
    case 'resources/list':
    case 'resources/templates/list':
      return weighted<Params>([3, fc.constant({})], [1, hostileValue.map((cursor) => ({ cursor }))]);
    default:
      return fc.constant({});
  }
}

/** Sometimes a stray hostile member next to the real params. */
export const strayParams: fc.Arbitrary<Array<[string, WireValue]>> = weighted<Array<[string, WireValue]>>(
  [6, fc.constant([])],
  [1, fc.array(fc.tuple(hostileKey, hostileValue), { maxLength: 2 })],
);

/** The members of an object value (plain or `Entries`); none for anything else. */
export function entriesOf(v: WireValue | undefined): Array<readonly [string, WireValue]> {
  if (v instanceof Entries) return [...v.entries];
  if (
    v === null ||
    v === undefined ||
    typeof v !== 'object' ||
    Array.isArray(v) ||
    v instanceof RawJson ||
    v instanceof FreshId ||
    v instanceof IdRef
  ) {
    return [];
  }
  return Object.entries(v);
}

export function withParams(params: Params, stray: Array<[string, WireValue]>, meta?: WireValue): WireValue {
  const entries: Array<[string, WireValue]> = Object.entries(params);
  for (const [k, v] of stray) if (k !== '_meta') entries.push([k, v]);
  if (meta !== undefined) entries.push(['_meta', meta]);
  return new Entries(entries);
}

/** One frame: a line on stdio, a body on HTTP. `value` is undefined for text that is not JSON. */
export interface Frame {
  readonly family: string;
  readonly value: WireValue | undefined;
  /** The frame as text when it is not JSON (otherwise rendered from `value` with channel ids). */
  readonly text?: string;
}

export interface FamilyOptions {
  /** Whether a valid `initialize` may be sent (not on a stdio channel whose one session must stay uninitialized). */
  readonly initialize: boolean;
  /** Whether the tools that sleep (up to 300 ms) may be called. */
  readonly slowTools: boolean;
}

export const isJson = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

export const frame =
  (family: string) =>
  (value: WireValue): Frame => ({ family, value });

export const knownModernRequest = (slowTools: boolean): fc.Arbitrary<WireValue> =>
  fc
    .constantFrom(...MODERN_METHODS)
    .chain((method) => fc.tuple(fc.constant(method), paramsOf(method, slowTools), strayParams, modernMeta, freshId))
    .map(([method, params, stray, meta, id]) => request(method, withParams(params, stray, meta), id));

export const knownLegacyRequest = (options: FamilyOptions): fc.Arbitrary<WireValue> =>
  fc
    .constantFrom(...LEGACY_METHODS, 'initialize')
    .chain((method) =>
      fc.tuple(
        fc.constant(method),
        method === 'initialize' ? initializeParams(options.initialize) : paramsOf(method, options.slowTools),
        strayParams,
        freshId,
        weighted<WireValue | undefined>([5, fc.constant(undefined)], [1, fc.record({ progressToken: fc.integer() })]),
      ),
    )
    .map(([method, params, stray, id, meta]) => request(method, withParams(params, stray, meta), id));

export function initializeParams(valid: boolean): fc.Arbitrary<Params> {
  const version = valid
    ? weighted<WireValue>([3, fc.constantFrom('2025-11-25', '2025-03-26', '2024-11-05', '2026-07-28', 'x')], [1, hostileValue])
    : notAnObject.filter((v) => typeof v !== 'string');
  return fc
    .record({ protocolVersion: version, capabilities: weighted<WireValue>([3, capabilities], [1, hostileValue]), clientInfo: hostileValue })
    .map((r) => ({ ...r }));
}

/** Whether a message carries a fresh (readable, unique) id. */
export function hasFreshId(v: WireValue): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Entries) && 'id' in v && v.id instanceof FreshId;
}
