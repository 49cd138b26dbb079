/**
 * The one era classifier (src/protocol/era-claim.ts), used by the server core per message and
 * by the HTTP transport per POST: a dual-era server (2026-07-28 basic/versioning.mdx §Backward
 * Compatibility: modern `_meta` is served statelessly, `initialize` selects legacy semantics),
 * batches only in 2025-03-26 (removed in 2025-06-18), and the MCP-Protocol-Version header as
 * HTTP's last hint.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { claimsModern, classifyPayload, legacyVersionHeaderProblem, versionHeaderClaimsModern } from '../../src/protocol/era-claim.js';
import { LEGACY_REVISIONS, META_CAPS, META_VERSION, MODERN } from '../support/common.js';

const modernMeta = { [META_VERSION]: MODERN, [META_CAPS]: {} };
const request = (method: string, params?: Record<string, unknown>) => ({ jsonrpc: '2.0', id: 1, method, ...(params && { params }) });

describe('one era classifier for the core and HTTP', () => {
  test('a _meta protocol version claims the modern wire, on any method, initialize included', () => {
    assert.equal(claimsModern('tools/call', { _meta: modernMeta }), true);
    assert.equal(classifyPayload(request('tools/call', { _meta: modernMeta })), 'modern');
    // 2026-07-28 has no handshake: its initialize is a modern request that gets -32601.
    assert.equal(classifyPayload(request('initialize', { protocolVersion: MODERN, _meta: modernMeta })), 'modern');
    // Any value names a version claim: an unsupported one is answered -32022 by the core.
    assert.equal(classifyPayload(request('tools/list', { _meta: { [META_VERSION]: '2099-01-01' } })), 'modern');
  });

  test('methods only 2026-07-28 has claim the modern wire without _meta; others do not', () => {
    for (const method of ['server/discover', 'subscriptions/listen']) {
      assert.equal(claimsModern(method, undefined), true, method);
      assert.equal(classifyPayload(request(method)), 'modern', method);
    }
    for (const method of ['tools/call', 'tools/list', 'ping', 'initialize']) assert.equal(claimsModern(method, {}), false, method);
  });

  test('an initialize request (with an id) opens a handshake; as a notification it does not', () => {
    assert.equal(classifyPayload(request('initialize', { protocolVersion: '2025-11-25' })), 'handshake');
    assert.equal(classifyPayload({ jsonrpc: '2.0', method: 'initialize' }), 'legacy');
  });

  test('a batch is legacy, whatever it holds (JSON-RPC batches exist only in 2025-03-26)', () => {
    assert.equal(classifyPayload([request('tools/call', { _meta: modernMeta })], MODERN), 'legacy');
  });

  test('other traffic is legacy unless the MCP-Protocol-Version header claims the modern wire', () => {
    const call = request('tools/call', { name: 'x' });
    assert.equal(classifyPayload(call), 'legacy');
    assert.equal(classifyPayload(call, MODERN), 'modern');
    assert.equal(classifyPayload(call, ` ${MODERN} `, 'some-session'), 'modern');
    for (const v of LEGACY_REVISIONS) assert.equal(classifyPayload(call, v), 'legacy', v);
    // An unknown version claims the modern wire (so it gets -32022) only without a session id.
    assert.equal(classifyPayload(call, '2099-01-01'), 'modern');
    assert.equal(classifyPayload(call, '2099-01-01', 'some-session'), 'legacy');
    assert.equal(versionHeaderClaimsModern('', undefined), false);
    assert.equal(versionHeaderClaimsModern(undefined, undefined), false);
  });

  test('session traffic: a present version header must name a handshake-era revision', () => {
    assert.equal(legacyVersionHeaderProblem(undefined), undefined);
    assert.equal(legacyVersionHeaderProblem(''), undefined);
    for (const v of LEGACY_REVISIONS) assert.equal(legacyVersionHeaderProblem(v), undefined, v);
    assert.match(legacyVersionHeaderProblem('2099-01-01') ?? '', /unsupported MCP-Protocol-Version "2099-01-01"/);
    assert.match(legacyVersionHeaderProblem(MODERN) ?? '', /unsupported/);
  });
});
