/**
 * The frame families of the JSON-RPC layer and the two eras: text that is not JSON, invalid
 * envelopes, stray responses, notifications, requests of real and unknown methods in each era,
 * broken `_meta` envelopes, listen streams and batches. Each family is named, so that one that
 * still fails on a known bug can be set aside (known-failures.ts) while the others keep running.
 */
import fc from 'fast-check';
import {
  brokenModernMeta,
  entriesOf,
  type FamilyOptions,
  type Frame,
  frame,
  hasFreshId,
  isJson,
  knownLegacyRequest,
  knownModernRequest,
  modernMeta,
  notification,
  paramsOf,
  request,
  strayParams,
  withParams,
} from './messages.js';
import {
  badId,
  deepValue,
  freshId,
  hostileKey,
  hostileNumber,
  hostileString,
  hostileValue,
  MODERN_METHODS,
  notAnObject,
  PROTOTYPE_KEYS,
  RESOURCES,
  weighted,
  WRONG_METHODS,
} from './values.js';
import { Entries, FreshId, IdRef, type WireValue } from './wire-text.js';

/** The families of the JSON-RPC layer and the eras, by name. */
export function wireFamilies(options: FamilyOptions): Record<string, fc.Arbitrary<Frame>> {
  const unknownMethodName = weighted<string>(
    [3, fc.constantFrom(...PROTOTYPE_KEYS)],
    [3, fc.constantFrom(...WRONG_METHODS)],
    [2, fc.string({ maxLength: 16 })],
  );
  const modernRequest = knownModernRequest(options.slowTools);
  const legacyRequest = knownLegacyRequest(options);
  const anyNotification = fc
    .tuple(
      weighted<string>(
        [
          3,
          fc.constantFrom(
            'notifications/initialized',
            'notifications/cancelled',
            'notifications/progress',
            'notifications/roots/list_changed',
          ),
        ],
        [2, fc.constantFrom(...PROTOTYPE_KEYS, ...WRONG_METHODS)],
        [1, fc.string({ maxLength: 12 })],
      ),
      weighted<WireValue | undefined>(
        [2, fc.constant(undefined)],
        [2, fc.record({ requestId: fc.nat().map((i) => new IdRef(i)), reason: hostileValue })],
        [2, fc.array(fc.tuple(hostileKey, hostileValue), { maxLength: 3 }).map((e) => new Entries(e))],
      ),
      fc.option(modernMeta, { nil: undefined }),
    )
    .map(([method, params, meta]) => {
      if (meta === undefined) return notification(method, params);
      return notification(method, new Entries([...entriesOf(params), ['_meta', meta]]));
    });

  const simpleMessages = fc.oneof(modernRequest, legacyRequest, anyNotification);

  const invalidEnvelope: fc.Arbitrary<WireValue> = fc
    .tuple(
      simpleMessages,
      fc.constantFrom(
        'no-jsonrpc',
        'jsonrpc',
        'method-type',
        'params-type',
        'id-type',
        'empty',
        'id-only',
        'result-and-error',
        'bad-result',
        'bad-error',
      ),
      notAnObject,
      badId,
      hostileValue,
    )
    .map(([message, what, wrong, id, value]): WireValue => {
      const m: Record<string, WireValue> = { ...(message as Record<string, WireValue>) };
      switch (what) {
        case 'no-jsonrpc':
          delete m.jsonrpc;
          return m;
        case 'jsonrpc':
          m.jsonrpc = typeof value === 'string' && value === '2.0' ? '1.0' : value;
          return m;
        case 'method-type':
          m.method = typeof value === 'string' ? 42 : value;
          return m;
        case 'params-type':
          m.params = wrong;
          return m;
        case 'id-type':
          m.id = id;
          return m;
        case 'empty':
          return {};
        case 'id-only':
          return { jsonrpc: '2.0', id: m.id ?? new FreshId('integer', '') };
        case 'result-and-error':
          return { jsonrpc: '2.0', id: m.id ?? new FreshId('integer', ''), result: {}, error: { code: -1, message: 'x' } };
        case 'bad-result':
          return { jsonrpc: '2.0', id: m.id ?? new FreshId('integer', ''), result: wrong };
        default:
          return {
            jsonrpc: '2.0',
            id: m.id ?? new FreshId('integer', ''),
            error: typeof value === 'object' && value !== null ? { code: 'x', message: 1 } : value,
          };
      }
    });

  const clientResponse: fc.Arbitrary<WireValue> = fc
    .tuple(
      weighted<WireValue>([2, freshId], [1, fc.nat().map((i) => new IdRef(i))], [1, fc.string({ maxLength: 4 })]),
      hostileValue,
      fc.boolean(),
    )
    .map(
      ([id, value, ok]): WireValue =>
        ok
          ? { jsonrpc: '2.0', id, result: value instanceof Entries ? value : {} }
          : { jsonrpc: '2.0', id, error: { code: typeof value === 'number' ? value : -32000, message: 'client side failure' } },
    );

  return {
    /** Text that is not JSON: -32700 (JSON-RPC §5.1), the channel carries on. */
    'text/unparsable': weighted<string>(
      [3, fc.string({ maxLength: 40 })],
      [2, fc.string({ unit: 'binary', maxLength: 40 })],
      [
        2,
        fc.constantFrom(
          'NaN',
          'undefined',
          "{'jsonrpc':'2.0'}",
          '{"jsonrpc":"2.0",}',
          '[1,2',
          '{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}',
          '{"jsonrpc":"2.0","id":1,"method":"ping"} x',
          '\u0000',
          '"\\x"',
          '{"a":"\\ud800"',
          '0x10',
          '.5',
          '+1',
          'tru',
          '\u00a0{}',
        ),
      ],
      [2, fc.tuple(modernRequest, fc.nat()).map(([v, n]) => JSON.stringify(v).slice(0, 1 + (n % 60)))],
      [1, fc.integer({ min: 1, max: 3000 }).map((n) => '['.repeat(n))],
    )
      .map((text) => text.replace(/[\n\r]/g, ' '))
      .filter((text) => text.trim() !== '' && !isJson(text))
      .map((text) => ({ family: 'text/unparsable', value: undefined, text })),

    /** JSON that is not an object: -32600. */
    'json/non-object': weighted<WireValue>(
      [2, fc.constantFrom(null, true, 0, -1.5, '', 'ping')],
      [1, hostileString],
      [1, hostileNumber],
    ).map(frame('json/non-object')),

    /** Objects that are not valid JSON-RPC 2.0 requests, notifications or responses: -32600. */
    'envelope/invalid': invalidEnvelope.map(frame('envelope/invalid')),

    /** Responses from the client to requests the server never sent: dropped, never answered. */
    'envelope/response': clientResponse.map(frame('envelope/response')),

    /** Notifications, real and made up, in both eras: never answered. */
    notification: anyNotification.map(frame('notification')),

    /** 2026-07-28 requests of methods the revision does not have (prototype names included): -32601. */
    'modern/unknown-method': fc
      .tuple(unknownMethodName, fc.array(fc.tuple(hostileKey, hostileValue), { maxLength: 2 }), modernMeta, freshId)
      .map(([method, stray, meta, id]) => request(method, withParams({}, stray, meta), id))
      .map(frame('modern/unknown-method')),

    /** 2026-07-28 requests whose `_meta` lacks or mistypes a required field, or names an unknown version: -32602 or -32022. */
    'modern/envelope': fc
      .tuple(fc.constantFrom(...MODERN_METHODS, 'subscriptions/listen', 'initialize', 'nope'), brokenModernMeta, freshId)
      .chain(([method, meta, id]) => paramsOf(method, false).map((params) => request(method, withParams(params, [], meta), id)))
      .map(frame('modern/envelope')),

    /** 2026-07-28 requests of real methods with plausible and hostile params. */
    'modern/request': modernRequest.map(frame('modern/request')),

    /** subscriptions/listen with every kind of filter: an acknowledgement, or -32602. */
    'modern/listen': fc
      .tuple(
        weighted<WireValue>(
          [
            3,
            fc.record(
              { toolsListChanged: fc.boolean(), promptsListChanged: fc.boolean(), resourcesListChanged: fc.boolean() },
              { requiredKeys: [] },
            ),
          ],
          [
            2,
            fc.record({
              resourceSubscriptions: fc.array(weighted<WireValue>([3, fc.constantFrom(...RESOURCES)], [1, hostileValue]), { maxLength: 4 }),
            }),
          ],
          [1, fc.array(fc.tuple(hostileKey, hostileValue), { maxLength: 3 }).map((e) => new Entries(e))],
          [1, notAnObject],
        ),
        modernMeta,
        freshId,
      )
      .map(([notifications, meta, id]) => request('subscriptions/listen', { notifications, _meta: meta }, id))
      .map(frame('modern/listen')),

    /** Handshake-era requests of real methods (and `initialize` again) with plausible and hostile params. */
    'legacy/request': legacyRequest.map(frame('legacy/request')),

    /** Handshake-era requests of methods the session's revision does not have: -32601. */
    'legacy/unknown-method': fc
      .tuple(
        unknownMethodName.filter((m) => m !== 'initialize' && m !== 'ping' && m !== 'server/discover'),
        strayParams,
        freshId,
      )
      .map(([method, stray, id]) => request(method, stray.length ? withParams({}, stray) : undefined, id))
      .map(frame('legacy/unknown-method')),

    /** JSON-RPC batches (2025-03-26 only; -32600 everywhere else), of any of the above. */
    batch: fc
      .array(weighted<WireValue>([4, simpleMessages], [1, invalidEnvelope.filter(hasFreshId)], [1, clientResponse]), { maxLength: 5 })
      .map(frame('batch')),

    /** Batches holding a subscriptions/listen among other requests: its stream must not hold the batch's other answers. */
    'batch/listen': fc
      .tuple(fc.array(simpleMessages, { minLength: 1, maxLength: 3 }), modernMeta, freshId, fc.nat())
      .map(([items, meta, id, at]) => {
        const all = [...items];
        all.splice(
          at % (items.length + 1),
          0,
          request('subscriptions/listen', { notifications: { toolsListChanged: true }, _meta: meta }, id),
        );
        return all;
      })
      .map(frame('batch/listen')),

    /** Batches with an item whose id cannot be read (not an object, or a mangled id): its error has no id. */
    'batch/unreadable-ids': fc
      .tuple(
        fc.array(weighted<WireValue>([3, simpleMessages], [1, invalidEnvelope]), { maxLength: 4 }),
        weighted<WireValue>(
          [2, hostileValue.filter((v) => !(v instanceof Entries))],
          [1, invalidEnvelope.filter((v) => !hasFreshId(v))],
          [1, deepValue],
        ),
        fc.nat(),
      )
      .map(([items, odd, at]) => {
        const all = [...items];
        all.splice(at % (items.length + 1), 0, odd);
        return all;
      })
      .map(frame('batch/unreadable-ids')),
  };
}
