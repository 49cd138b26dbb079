/**
 * The one base64 codec (src/protocol/base64.ts, RFC 4648 §4 and §5), runtime-neutral: it
 * must agree with Node's Buffer, which the core itself never uses.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { base64ToBytes, base64UrlToBytes, bytesToBase64, bytesToBase64Url } from '../../src/protocol/base64.js';

const samples = [
  new Uint8Array(0),
  Uint8Array.of(0),
  Uint8Array.of(0xfb, 0xff),
  new TextEncoder().encode('héllo ☃ wörld'),
  Uint8Array.from({ length: 70_000 }, (_, i) => (i * 7) % 256),
];

test('base64 agrees with Buffer both ways, large inputs included', () => {
  for (const bytes of samples) {
    const text = bytesToBase64(bytes);
    assert.equal(text, Buffer.from(bytes).toString('base64'));
    assert.deepEqual(base64ToBytes(text), bytes);
  }
});

test('base64url has no padding and no + or /, and decodes padded or not (RFC 4648 §5)', () => {
  for (const bytes of samples) {
    const text = bytesToBase64Url(bytes);
    assert.equal(text, Buffer.from(bytes).toString('base64url'));
    assert.doesNotMatch(text, /[+/=]/);
    assert.deepEqual(base64UrlToBytes(text), bytes);
  }
  assert.deepEqual(base64UrlToBytes('-_8='), Uint8Array.of(0xfb, 0xff));
});

test('characters outside the alphabet throw', () => {
  assert.throws(() => base64ToBytes('ab$c'));
  assert.throws(() => base64UrlToBytes('a'));
});
