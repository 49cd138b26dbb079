/**
 * `extend` (src/protocol/extend.ts), the hot paths' replacement for `{ ...base, ...extra }`:
 * the same copy, including for a source with an own `__proto__` key (JSON.parse makes them),
 * which must stay an ordinary key and never become the copy's prototype.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extend } from '../../src/protocol/extend.js';

test('copies own enumerable keys and symbols, base first, extra winning, sources untouched', () => {
  const sym = Symbol('s');
  const base = { a: 1, b: 2, [sym]: 'x' };
  Object.defineProperty(base, 'hidden', { value: 1, enumerable: false });
  const out = extend(base, { b: 3, c: 4 });
  assert.deepEqual(out, { ...base, ...{ b: 3, c: 4 } });
  assert.deepEqual(Object.keys(out), ['a', 'b', 'c']);
  assert.equal(out[sym], 'x');
  assert.equal('hidden' in out, false);
  assert.deepEqual(base, { a: 1, b: 2, [sym]: 'x' });
  assert.notEqual(out, base);
});

test('an own __proto__ key from JSON stays a key: the copy keeps Object.prototype', () => {
  for (const [base, extra] of [
    [JSON.parse('{"__proto__": {"polluted": true}, "a": 1}'), { b: 2 }],
    [{ a: 1 }, JSON.parse('{"__proto__": {"polluted": true}}')],
  ] as const) {
    const out = extend(base as object, extra as object) as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
    assert.equal(out.polluted, undefined);
    assert.ok(Object.hasOwn(out, '__proto__'));
    assert.deepEqual(Object.getOwnPropertyDescriptor(out, '__proto__')?.value, { polluted: true });
  }
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});
