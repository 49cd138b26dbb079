/**
 * The frame families of hostile values in the places a server looks things up or walks:
 * prototype keys as names and keys, objects whose `toString` is not a function, odd resource
 * URIs, nesting from moderate to thousands of levels deep, huge strings.
 */
import fc from 'fast-check';
import { META_CAPS, META_CLIENT, META_LOG, META_VERSION } from '../support/common.js';
import { type Frame, frame, modernMeta, notification, type Params, request, withParams } from './messages.js';
import { CONVERSION_KEYS, deepValue, freshId, hostileString, hostileValue, hugeString, PROTOTYPE_KEYS, weighted } from './values.js';
import { Entries, IdRef, nested, type WireValue } from './wire-text.js';

/** The families of hostile values, by name. */
export function hostileFamilies(): Record<string, fc.Arbitrary<Frame>> {
  return {
    /** Prototype keys as the names a server looks up: tools, prompts, resources, prompt arguments, answers. */
    'prototype/names': fc
      .tuple(
        fc.constantFrom(...PROTOTYPE_KEYS),
        fc.constantFrom('tool', 'prompt', 'uri', 'template', 'input-responses', 'prompt-argument'),
        fc.boolean(),
        modernMeta,
        freshId,
      )
      .map(([key, where, modern, meta, id]) => {
        const [method, params]: [string, Params] =
          where === 'tool'
            ? ['tools/call', { name: key, arguments: {} }]
            : where === 'prompt'
              ? ['prompts/get', { name: key }]
              : where === 'uri'
                ? ['resources/read', { uri: key }]
                : where === 'template'
                  ? ['resources/read', { uri: `test://template/${key}/data` }]
                  : where === 'prompt-argument'
                    ? [
                        'prompts/get',
                        {
                          name: 'test_prompt_with_arguments',
                          arguments: new Entries([
                            [key, 'x'],
                            ['arg1', 'a'],
                            ['arg2', 'b'],
                          ]),
                        },
                      ]
                    : [
                        'tools/call',
                        { name: 'test_input_required_result_elicitation', inputResponses: new Entries([[key, { action: 'accept' }]]) },
                      ];
        return request(method, modern ? withParams(params, [], meta) : new Entries(Object.entries(params)), id);
      })
      .map(frame('prototype/names')),

    /** Prototype keys as completion references and argument names (completion.mdx): -32602 or an empty completion. */
    'prototype/completion': fc
      .tuple(
        fc.constantFrom(...PROTOTYPE_KEYS),
        fc.constantFrom('prompt-ref', 'argument', 'template-variable', 'context'),
        fc.boolean(),
        modernMeta,
        freshId,
      )
      .map(([key, where, modern, meta, id]) => {
        const params: Params =
          where === 'prompt-ref'
            ? { ref: { type: 'ref/prompt', name: key }, argument: { name: 'arg1', value: '' } }
            : where === 'argument'
              ? { ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: key, value: '' } }
              : where === 'template-variable'
                ? { ref: { type: 'ref/resource', uri: 'test://template/{id}/data' }, argument: { name: key, value: '1' } }
                : {
                    ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
                    argument: { name: 'arg2', value: '' },
                    context: { arguments: new Entries([[key, 'x']]) },
                  };
        return request('completion/complete', modern ? withParams(params, [], meta) : new Entries(Object.entries(params)), id);
      })
      .map(frame('prototype/completion')),

    /** URIs that are not what a resource URI should be: spaces, relative paths, control characters, empty. */
    'resources/uri': fc
      .tuple(
        weighted<string>(
          [2, hostileString],
          [2, fc.string({ maxLength: 8 }).map((id) => `test://template/${id}/data`)],
          [1, fc.constantFrom('', ' ', 'test://static-text ', 'test://template//data', 'relative/path', '://', 'test://template/a b/data')],
        ),
        fc.constantFrom('resources/read', 'resources/subscribe', 'resources/unsubscribe'),
        fc.boolean(),
        modernMeta,
        freshId,
      )
      .map(([uri, method, modern, meta, id]) =>
        request(modern ? 'resources/read' : method, modern ? withParams({ uri }, [], meta) : { uri }, id),
      )
      .map(frame('resources/uri')),

    /**
     * Objects whose `toString` or `valueOf` is not a function, wherever a server might turn a
     * value into text for a message: log levels, names, URIs, cursors, tokens, cancel reasons.
     */
    'prototype/poison': fc
      .tuple(
        fc.constantFrom('toString', 'valueOf'),
        fc.constantFrom(null, 1, 'x', {}),
        fc.constantFrom(
          'set-level',
          'meta-log',
          'name',
          'prompt',
          'uri',
          'cursor',
          'progress-token',
          'cancel',
          'client-info',
          'argument',
          'input-response',
          'request-state',
          'version',
        ),
        fc.boolean(),
        modernMeta,
        freshId,
      )
      .map(([key, value, where, modern, meta, id]): WireValue => {
        const poison = new Entries([[key, value]]);
        const m = (params: Params): WireValue => (modern ? withParams(params, [], meta) : new Entries(Object.entries(params)));
        switch (where) {
          case 'set-level':
            return request('logging/setLevel', { level: poison }, id);
          case 'meta-log':
            return request('server/discover', { _meta: { ...meta, [META_LOG]: poison } }, id);
          case 'version':
            return request('server/discover', { _meta: { ...meta, [META_VERSION]: poison } }, id);
          case 'client-info':
            return request('server/discover', { _meta: { ...meta, [META_CLIENT]: { name: poison, version: poison } } }, id);
          case 'progress-token':
            return request('tools/call', { name: 'test_tool_with_progress', _meta: { ...meta, progressToken: poison } }, id);
          case 'name':
            return request('tools/call', m({ name: poison }), id);
          case 'prompt':
            return request('prompts/get', m({ name: poison }), id);
          case 'uri':
            return request('resources/read', m({ uri: poison }), id);
          case 'cursor':
            return request('tools/list', m({ cursor: poison }), id);
          case 'argument':
            return request('tools/call', m({ name: 'test_x_mcp_header', arguments: { region: poison } }), id);
          case 'input-response':
            return request('tools/call', m({ name: 'test_input_required_result_elicitation', inputResponses: { user_name: poison } }), id);
          case 'request-state':
            return request('tools/call', m({ name: 'test_input_required_result_elicitation', requestState: poison }), id);
          default:
            // In a batch with the request it cancels, so that the request is still in flight.
            return [
              request('tools/call', m({ name: 'test_simple_text' }), id),
              notification('notifications/cancelled', { requestId: new IdRef(0), reason: poison }),
            ];
        }
      })
      .map(frame('prototype/poison')),

    /** Prototype keys as object keys: in arguments, capabilities, `_meta`, clientInfo. */
    'prototype/keys': fc
      .tuple(
        fc.constantFrom(...PROTOTYPE_KEYS.filter((k) => !CONVERSION_KEYS.has(k))),
        fc.constantFrom('arguments', 'capabilities', 'meta', 'client-info', 'params'),
        hostileValue,
        modernMeta,
        freshId,
      )
      .map(([key, where, value, meta, id]) => {
        const poison = new Entries([[key, value]]);
        if (where === 'arguments')
          return request('tools/call', withParams({ name: 'json_schema_2020_12_tool', arguments: poison }, [], meta), id);
        if (where === 'capabilities') return request('tools/list', { _meta: { ...meta, [META_CAPS]: poison } }, id);
        if (where === 'client-info') return request('server/discover', { _meta: { ...meta, [META_CLIENT]: poison } }, id);
        if (where === 'meta') return request('server/discover', { _meta: new Entries([...Object.entries(meta), [key, value]]) }, id);
        return request(
          'tools/list',
          new Entries([
            [key, value],
            ['_meta', meta],
          ]),
          id,
        );
      })
      .map(frame('prototype/keys')),

    /** Nesting thousands of levels deep in the 2026-07-28 `_meta` envelope. */
    'deep/meta': fc
      .tuple(fc.constantFrom('log-level', 'client-info', 'capabilities', 'progress-token', 'extra-key'), deepValue, modernMeta, freshId)
      .map(([where, deep, meta, id]): WireValue => {
        const key = {
          'log-level': META_LOG,
          'client-info': META_CLIENT,
          capabilities: META_CAPS,
          'progress-token': 'progressToken',
          'extra-key': 'x',
        }[where];
        return request('tools/call', { name: 'test_simple_text', _meta: { ...meta, [key]: deep } }, id);
      })
      .map(frame('deep/meta')),

    /** Nesting that every server must take (at most 64 levels in all): answered as if it were flat. */
    'deep/moderate': fc
      .tuple(
        fc.integer({ min: 8, max: 60 }),
        fc.constantFrom<'array' | 'object'>('array', 'object'),
        modernMeta,
        freshId,
        fc.boolean(),
        fc.boolean(),
      )
      .map(([depth, kind, meta, id, modern, schema]): WireValue => {
        const args = { a: nested(depth, kind) }; // message → params → arguments → a: depth + 3 levels
        const params: Params = schema
          ? { name: 'json_schema_2020_12_tool', arguments: args }
          : { name: 'test_simple_text', arguments: args };
        return request('tools/call', modern ? withParams(params, [], meta) : new Entries(Object.entries(params)), id);
      })
      .map(frame('deep/moderate')),

    /** Nesting thousands of levels deep in the params of real methods, in both eras. */
    'deep/params': fc
      .tuple(
        fc.constantFrom(
          'arguments',
          'schema-arguments',
          'prompt-arguments',
          'name',
          'uri',
          'cursor',
          'input-responses',
          'request-state',
          'completion',
        ),
        deepValue,
        modernMeta,
        freshId,
        fc.boolean(),
      )
      .map(([where, deep, meta, id, modern]): WireValue => {
        const m = (params: Params): WireValue => (modern ? withParams(params, [], meta) : new Entries(Object.entries(params)));
        switch (where) {
          case 'arguments':
            return request('tools/call', m({ name: 'test_simple_text', arguments: { a: deep } }), id);
          case 'schema-arguments':
            return request('tools/call', m({ name: 'json_schema_2020_12_tool', arguments: { name: deep } }), id);
          case 'prompt-arguments':
            return request('prompts/get', m({ name: 'test_simple_prompt', arguments: { a: deep } }), id);
          case 'name':
            return request('tools/call', m({ name: deep }), id);
          case 'uri':
            return request('resources/read', m({ uri: deep }), id);
          case 'cursor':
            return request('tools/list', m({ cursor: deep }), id);
          case 'input-responses':
            return request('tools/call', m({ name: 'test_input_required_result_elicitation', inputResponses: { user_name: deep } }), id);
          case 'request-state':
            return request('tools/call', m({ name: 'test_input_required_result_elicitation', requestState: deep }), id);
          default:
            return request(
              'completion/complete',
              m({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: deep } }),
              id,
            );
        }
      })
      .map(frame('deep/params')),

    /** Nesting thousands of levels deep in the JSON-RPC envelope itself: id, method, params, `_meta`. */
    'deep/envelope': fc
      .tuple(fc.constantFrom('id', 'method', 'params', 'meta', 'cancel', 'result'), deepValue, freshId)
      .map(([where, deep, id]): WireValue => {
        switch (where) {
          case 'id':
            return request('ping', undefined, deep);
          case 'method':
            return request(deep, undefined, id);
          case 'params':
            return request('tools/list', deep, id);
          case 'meta':
            return new Entries([
              ['jsonrpc', '2.0'],
              ['id', id],
              ['method', 'tools/list'],
              ['params', new Entries([['_meta', deep]])],
            ]);
          case 'result':
            return { jsonrpc: '2.0', id, result: { a: deep } };
          default:
            return notification('notifications/cancelled', { requestId: deep, reason: deep });
        }
      })
      .map(frame('deep/envelope')),

    /** Strings up to about half a MiB wherever a string goes (below every size limit). */
    'huge-strings': fc
      .tuple(fc.constantFrom('tool-name', 'argument', 'uri', 'method', 'meta-key', 'id'), hugeString, modernMeta, freshId, fc.boolean())
      .map(([where, big, meta, id, modern]): WireValue => {
        const m = (params: Params): WireValue => (modern ? withParams(params, [], meta) : new Entries(Object.entries(params)));
        if (where === 'tool-name') return request('tools/call', m({ name: big }), id);
        if (where === 'argument') return request('tools/call', m({ name: 'test_x_mcp_header', arguments: { region: big } }), id);
        if (where === 'uri') return request('resources/read', m({ uri: big }), id);
        if (where === 'method') return request(big, m({}), id);
        if (where === 'meta-key') return request('server/discover', { _meta: { ...meta, [big]: 1 } }, id);
        return request('ping', undefined, big);
      })
      .map(frame('huge-strings')),
  };
}
