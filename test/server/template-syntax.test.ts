/**
 * Resource templates are RFC 6570 URI templates (§2): one that is not (an unbalanced brace,
 * an empty expression, a reserved operator, a bad variable name or prefix) is refused at
 * registration, naming the template and what is wrong, instead of never matching.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JanusError } from '../../src/errors/index.js';
import { createServer } from '../../src/server/index.js';
import { withMemoryPeer } from '../support/peer.js';

const fresh = () => createServer({ name: 'templates', version: '1.0.0' });
const read = (uri: URL | string) => `read ${String(uri)}`;

const INVALID: Array<[string, RegExp]> = [
  ['note://{title', /the "\{" at offset 7 is never closed/],
  ['note://{a{b}', /the "\{" at offset 7 is never closed/],
  ['note://title}', /a "\}" at offset 12 closes no expression/],
  ['note://{}', /the expression \{\} at offset 7 is empty/],
  ['note://{=x}', /operator "=", which RFC 6570 reserves/],
  ['note://{|x}', /operator "\|", which RFC 6570 reserves/],
  ['note://{?}', /operator "\?" but no variable/],
  ['note://{a,,b}', /empty variable between commas/],
  ['note://{a-b}', /variable name "a-b", which RFC 6570 does not allow/],
  ['note://{ title }', /variable name " title "/],
  ['note://{a..b}', /variable name "a\.\.b"/],
  ['note://{title:0}', /prefix ":0" on "title"/],
  ['note://{title:10000}', /prefix ":10000"/],
];

for (const [template, why] of INVALID) {
  test(`registering the template ${template} throws, naming it and what is wrong`, () => {
    assert.throws(
      () => fresh().resourceTemplate(template, { name: 'note' }, read),
      (e: unknown) => {
        assert.ok(e instanceof JanusError, String(e));
        assert.equal(e.code, 'REGISTRATION');
        assert.ok(e.message.startsWith(`resource template "${template}" is not a valid RFC 6570 URI template: `), e.message);
        assert.match(e.message, why);
        return true;
      },
    );
  });
}

test('valid templates of every operator register', () => {
  const server = fresh();
  for (const template of [
    'note://{title}',
    'note://{+path}',
    'note://x{#frag}',
    'note://x{/a,b}',
    'note://x{.ext}',
    'note://x{;v}',
    'note://x{?q,page}',
    'note://x{?q}{&page}',
    'note://{title:3}/{list*}',
    'note://{a.b}/{%20x}',
  ]) {
    server.resourceTemplate(template, { name: template }, read);
  }
});

test('label ({.x}) and path-parameter ({;x}) expressions match what they expand to', async () => {
  const server = fresh();
  server.resourceTemplate('file://doc{.ext}', { name: 'doc' }, (_uri, vars) => `ext=${vars.ext}`);
  server.resourceTemplate('map://tile{;x,y}', { name: 'tile' }, (_uri, vars) => `x=${vars.x} y=${vars.y}`);
  await withMemoryPeer(
    server,
    async (peer) => {
      const doc = await peer.request('resources/read', { uri: 'file://doc.md' });
      assert.equal(doc.result?.contents[0].text, 'ext=md');
      const tile = await peer.request('resources/read', { uri: 'map://tile;x=3;y=4' });
      assert.equal(tile.result?.contents[0].text, 'x=3 y=4');
    },
    { revision: '2025-11-25', handshake: {} },
  );
});
