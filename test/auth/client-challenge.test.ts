/** `WWW-Authenticate` parsing for the OAuth client: the Bearer challenge's parameters, whatever else the header carries. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseBearerChallenge } from '../../src/client/index.js';

test('the Bearer challenge: resource_metadata, scope (split), error, quoted or not', () => {
  const c = parseBearerChallenge(
    'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp:read  mcp:write", error=insufficient_scope',
  );
  assert.equal(c?.resourceMetadata, 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp');
  assert.deepEqual(c?.scope, ['mcp:read', 'mcp:write']);
  assert.equal(c?.error, 'insufficient_scope');
});

test('among several challenges, the Bearer one; names case-insensitive, escapes and commas inside quotes kept', () => {
  const c = parseBearerChallenge(
    'Basic realm="a, b", DPoP algs="ES256", bearer Error="invalid_token", error_description="say \\"hi\\", then go"',
  );
  assert.equal(c?.error, 'invalid_token');
  assert.equal(c?.errorDescription, 'say "hi", then go');
  assert.equal(c?.resourceMetadata, undefined);
  assert.equal(c?.scope, undefined);
});

test('no Bearer challenge, or no header: undefined', () => {
  assert.equal(parseBearerChallenge('Basic realm="x"'), undefined);
  assert.equal(parseBearerChallenge(null), undefined);
  assert.deepEqual(parseBearerChallenge('Bearer')?.params, {});
});
