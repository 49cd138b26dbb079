/**
 * The values a hostile or broken MCP client puts in its messages, as fast-check generators:
 * prototype keys (`__proto__`, `constructor`, …) as names and as object keys, strings of every
 * code point and up to about half a MiB, numbers JSON cannot keep exactly, wrong types, nesting
 * thousands of levels deep; and the names of what the example server (test/fixtures/everything) has.
 */
import fc from 'fast-check';
import { META_CAPS, META_VERSION } from '../support/common.js';
import { Entries, FreshId, type IdShape, nested, type RawJson, type WireValue } from './wire-text.js';

/** Keys that name something on `Object.prototype` (or make a value a thenable). */
export const PROTOTYPE_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  '__lookupSetter__',
  'then',
] as const;

/** The example server's tools (test/fixtures/everything); the slow ones sleep up to 300 ms. */
export const FAST_TOOLS = [
  'test_simple_text',
  'test_image_content',
  'test_audio_content',
  'test_embedded_resource',
  'test_multiple_content_types',
  'test_logging_tool',
  'test_error_handling',
  'test_sampling',
  'test_elicitation',
  'test_elicitation_sep1034_defaults',
  'test_elicitation_sep1330_enums',
  'json_schema_2020_12_tool',
  'test_missing_capability',
  'test_streaming_elicitation',
  'test_trigger_tool_change',
  'test_trigger_prompt_change',
  'test_x_mcp_header',
  'test_input_required_result_elicitation',
  'test_input_required_result_sampling',
  'test_input_required_result_list_roots',
  'test_input_required_result_request_state',
  'test_input_required_result_multiple_inputs',
  'test_input_required_result_multi_round',
  'test_input_required_result_tampered_state',
  'test_input_required_result_capabilities',
] as const;
export const SLOW_TOOLS = ['test_tool_with_logging', 'test_tool_with_progress', 'test_reconnection'] as const;
export const PROMPTS = [
  'test_simple_prompt',
  'test_prompt_with_arguments',
  'test_prompt_with_embedded_resource',
  'test_prompt_with_image',
  'test_input_required_result_prompt',
];
export const RESOURCES = ['test://static-text', 'test://static-binary', 'test://watched-resource', 'test://template/123/data'];

export const LEGACY_METHODS = [
  'ping',
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'logging/setLevel',
  'completion/complete',
];
export const MODERN_METHODS = [
  'server/discover',
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'completion/complete',
];
/** Methods of other revisions, of the other direction, or near misses of real ones. */
export const WRONG_METHODS = [
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'server/discover',
  'sampling/createMessage',
  'roots/list',
  'elicitation/create',
  // The tasks extension's own methods (tasks/get, tasks/list, …) are served by the fixture: near misses instead.
  'tasks/create',
  'tasks/watch',
  'notifications/initialized',
  'notifications/cancelled',
  'tools/call/',
  '/tools/call',
  'TOOLS/LIST',
  'tools/list\u0000',
  ' tools/list',
  'tools.list',
  'tools',
  '',
  'rpc.discover',
];

// ---------------------------------------------------------------------------------------------
// Values

export const weighted = <T>(...pairs: Array<[number, fc.Arbitrary<T>]>): fc.Arbitrary<T> =>
  fc.oneof(...pairs.map(([weight, arbitrary]) => ({ weight, arbitrary })));

/** A string up to about half a MiB: one character repeated (cheap to generate and shrink). */
export const hugeString: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom('x', 'é', '\u0000', '"', '\\', '😀', '\n'), fc.integer({ min: 10_000, max: 300_000 }))
  .map(([ch, n]) => ch.repeat(n));

export const hostileString: fc.Arbitrary<string> = weighted(
  [3, fc.constantFrom(...PROTOTYPE_KEYS)],
  [4, fc.string({ maxLength: 12 })],
  [2, fc.string({ unit: 'binary', maxLength: 12 })],
  [
    2,
    fc.constantFrom(
      '',
      ' ',
      '\u0000',
      '\r\n',
      '\u2028',
      '\ud800',
      '\udfff\ud800',
      '=?base64?AAAA?=',
      '=?base64?!!?=',
      '../../etc/passwd',
      'test://template/../data',
      'test://template/%2e%2e/data',
      '%00',
      '{id}',
      'a'.repeat(300),
      '2026-07-28',
      '2025-11-25',
    ),
  ],
  [1, hugeString],
);

/**
 * A hostile string for a position a server looks up by name (tool, prompt, completion argument):
 * no prototype keys, which have their own families (`prototype/names`, `prototype/completion`).
 */
export const lookupName: fc.Arbitrary<string> = hostileString.filter((s) => !(PROTOTYPE_KEYS as readonly string[]).includes(s));

export const hostileNumber: fc.Arbitrary<number> = weighted(
  [3, fc.integer()],
  [2, fc.double()],
  [1, fc.constantFrom(0, -0, -1, 1e308, -1e308, 2 ** 53, 2 ** 53 + 2, 0.5, 1e-320)],
);

/**
 * The keys that make `String(value)` or a template literal throw when their value is not a
 * function (`{"toString": null}`). They poison values of every type; the `prototype/poison`
 * family puts them everywhere, the other families leave them out so one bug does not hide others.
 */
export const CONVERSION_KEYS: ReadonlySet<string> = new Set(['toString', 'valueOf', 'toLocaleString']);

export const hostileKey: fc.Arbitrary<string> = weighted(
  [3, fc.constantFrom(...PROTOTYPE_KEYS.filter((k) => !CONVERSION_KEYS.has(k)))],
  [4, fc.string({ maxLength: 8 })],
  [1, fc.constantFrom('_meta', 'name', 'uri', 'arguments', META_VERSION, META_CAPS, 'progressToken')],
);

/** Nesting from just past what any server must accept up to a few thousand levels. */
export const deepValue: fc.Arbitrary<RawJson> = fc
  .tuple(
    fc.integer({ min: 65, max: 5000 }),
    fc.constantFrom<'array' | 'object'>('array', 'object'),
    fc.constantFrom('"x"', '1', 'null', '{"__proto__":{"polluted":true}}', '{}'),
  )
  .map(([depth, kind, leaf]) => nested(depth, kind, leaf));

/**
 * Any JSON value, hostile in every part; `Entries` keeps prototype keys as plain keys. Nesting
 * stays shallow here: depth has its own families (`deep/*`), so that a depth bug does not hide
 * the others.
 */
export const hostileValue: fc.Arbitrary<WireValue> = fc.letrec<{ value: WireValue }>((tie) => ({
  value: weighted<WireValue>(
    [2, fc.constantFrom(null, true, false)],
    [2, hostileNumber],
    [4, hostileString],
    [1, fc.array(tie('value'), { maxLength: 4 })],
    [2, fc.array(fc.tuple(hostileKey, tie('value')), { maxLength: 4 }).map((entries) => new Entries(entries))],
  ),
})).value;

/** A value of the wrong JSON type for a field that wants an object. */
export const notAnObject: fc.Arbitrary<WireValue> = weighted<WireValue>(
  [2, fc.constantFrom(null, true, 0, 'x', '')],
  [1, fc.array(hostileValue, { maxLength: 3 })],
  [1, hostileString],
);

// ---------------------------------------------------------------------------------------------
// Ids and envelopes

const idShape = fc.constantFrom<IdShape>('integer', 'negative', 'large', 'string', 'numeric-string');
export const freshId: fc.Arbitrary<WireValue> = fc
  .tuple(idShape, fc.string({ maxLength: 6 }))
  .map(([shape, salt]) => new FreshId(shape, salt));
/** Ids MCP does not allow (basic/index.mdx §Requests: a string or an integer, never null). */
export const badId: fc.Arbitrary<WireValue> = weighted<WireValue>(
  [3, fc.constantFrom(null, true, 1.5, -0.25, 1e21, [], {})],
  [1, fc.array(hostileValue, { maxLength: 2 })],
);
