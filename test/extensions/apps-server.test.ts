/**
 * MCP Apps on the server (ext-apps specification 2026-01-26, SEP-1865): `ui.tool` of the Apps
 * extension (`apps()`) registers a tool and its `ui://` resource together. The tool carries
 * `_meta.ui.resourceUri` (and the deprecated `_meta["ui/resourceUri"]`), the resource is
 * `text/html;profile=mcp-app` with `_meta.ui` on its listing entry and its read content (§UI
 * Resource Format, draft §Metadata Location), and `io.modelcontextprotocol/ui` is advertised,
 * once the extension is added, where the revision has `capabilities.extensions` (2026-07-28).
 * Every message is checked against the revision's schema (test/support/peer.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { JanusError } from '../../src/errors/index.js';
import { createServer, type Server } from '../../src/server/index.js';
import { APP_MIME_TYPE, APPS_EXTENSION, apps, type AppsExtension } from '../../src/extensions/apps/index.js';
import { MODERN } from '../support/common.js';
import { MemoryPeer, handshake, withMemoryPeer, type TestPeer } from '../support/peer.js';

const URI = 'ui://weather/dashboard.html';
const HTML = '<!DOCTYPE html><html><body>weather</body></html>';
const CSP = { connectDomains: ['https://api.example.com', 'wss://live.example.com:8443'], resourceDomains: ['https://*.cdn.example.com'] };

/** A server with the Apps extension; `ui` registers app tools on it. */
function fresh(): { server: Server; ui: AppsExtension } {
  const ui = apps();
  return { server: createServer({ name: 'apps', version: '1.0.0', extensions: [ui] }), ui };
}

function weather(ui: AppsExtension) {
  return ui.tool(
    'weather',
    {
      description: 'Weather with a dashboard',
      input: z.object({ city: z.string() }),
      _meta: { 'example.com/owner': 'team-a' },
      ui: {
        uri: URI,
        html: HTML,
        title: 'Dashboard',
        csp: CSP,
        permissions: { geolocation: {} },
        prefersBorder: true,
        domain: 'abc.example-host.com',
      },
    },
    ({ city }) => `sunny in ${city}`,
  );
}

function refused(pattern: RegExp): (e: unknown) => boolean {
  return (e) => {
    assert.ok(e instanceof JanusError, `expected a JanusError, got ${String(e)}`);
    assert.equal(e.code, 'REGISTRATION');
    assert.match(e.message, pattern);
    return true;
  };
}

/** A peer at `rev`: legacy revisions after the handshake; `send` wraps modern requests in the envelope. */
async function peerAt(
  server: Server,
  rev: string,
): Promise<{ peer: TestPeer; send(method: string, params?: Record<string, unknown>): Promise<any> }> {
  const peer = await MemoryPeer.connect(server, { revision: rev });
  if (rev !== MODERN) await handshake(peer, rev);
  const send = async (method: string, params: Record<string, unknown> = {}) => {
    const r = rev === MODERN ? await peer.modern(method, params) : await peer.request(method, params);
    if (r.error) throw Object.assign(new Error(`${method}: ${JSON.stringify(r.error)}`), { rpc: r.error });
    return r.result;
  };
  return { peer, send };
}

const UI_META = { csp: CSP, permissions: { geolocation: {} }, domain: 'abc.example-host.com', prefersBorder: true };

/** Revisions whose Tool, Resource and resource contents have `_meta` (2025-06-18 changelog). */
const WITH_META = ['2025-06-18', '2025-11-25', MODERN];

test('[2024-11-05, 2025-03-26] without _meta on Tool and Resource the link is not sent: the tool degrades to a plain tool (§Behavior)', async () => {
  for (const rev of ['2024-11-05', '2025-03-26']) {
    const { server, ui } = fresh();
    weather(ui);
    const { peer, send } = await peerAt(server, rev);
    try {
      const { tools } = await send('tools/list');
      assert.equal(tools[0]._meta, undefined, rev);
      assert.deepEqual((await send('tools/call', { name: 'weather', arguments: { city: 'Oslo' } })).content, [
        { type: 'text', text: 'sunny in Oslo' },
      ]);
      assert.deepEqual((await send('resources/list')).resources, [{ uri: URI, name: 'weather', mimeType: APP_MIME_TYPE }], rev);
      assert.deepEqual((await send('resources/read', { uri: URI })).contents, [{ uri: URI, mimeType: APP_MIME_TYPE, text: HTML }], rev);
    } finally {
      await peer.close();
      server.close();
    }
  }
});

for (const rev of WITH_META) {
  test(`[${rev}] the tool links its UI in _meta.ui.resourceUri (and the deprecated flat key), keeping its own _meta (§Resource Discovery)`, async () => {
    const { server, ui } = fresh();
    weather(ui);
    const { peer, send } = await peerAt(server, rev);
    try {
      const { tools } = await send('tools/list');
      assert.equal(tools.length, 1);
      assert.deepEqual(tools[0]._meta, { 'example.com/owner': 'team-a', ui: { resourceUri: URI }, 'ui/resourceUri': URI });
      const called = await send('tools/call', { name: 'weather', arguments: { city: 'Oslo' } });
      assert.deepEqual(called.content, [{ type: 'text', text: 'sunny in Oslo' }]);
    } finally {
      await peer.close();
      server.close();
    }
  });

  test(`[${rev}] the UI resource is listed and read as text/html;profile=mcp-app with its _meta.ui (§UI Resource Format, §Metadata Location)`, async () => {
    const { server, ui } = fresh();
    weather(ui);
    const { peer, send } = await peerAt(server, rev);
    try {
      const { resources } = await send('resources/list');
      assert.deepEqual(resources, [{ uri: URI, name: 'weather', title: 'Dashboard', mimeType: APP_MIME_TYPE, _meta: { ui: UI_META } }]);
      const read = await send('resources/read', { uri: URI });
      assert.deepEqual(read.contents, [{ uri: URI, mimeType: APP_MIME_TYPE, text: HTML, _meta: { ui: UI_META } }]);
    } finally {
      await peer.close();
      server.close();
    }
  });
}

test(`[${MODERN}] server/discover advertises io.modelcontextprotocol/ui under capabilities.extensions, with no settings (SEP-2133)`, async () => {
  const { server, ui } = fresh();
  const { peer, send } = await peerAt(server, MODERN);
  try {
    const before = await send('server/discover');
    assert.deepEqual(before.capabilities.extensions?.[APPS_EXTENSION], {}, 'advertised once added, before any app tool');
    weather(ui);
    const after = await send('server/discover');
    assert.deepEqual(after.capabilities.extensions[APPS_EXTENSION], {});
  } finally {
    await peer.close();
    server.close();
  }
  const plain = createServer({ name: 'plain', version: '1.0.0' });
  const other = await peerAt(plain, MODERN);
  try {
    const discovered = await other.send('server/discover');
    assert.equal(discovered.capabilities.extensions?.[APPS_EXTENSION], undefined, 'not advertised without the extension');
  } finally {
    await other.peer.close();
    plain.close();
  }
});

test('[2025-11-25] initialize does not carry capabilities.extensions, which the revision lacks', async () => {
  const { server, ui } = fresh();
  weather(ui);
  await withMemoryPeer(server, async (peer) => {
    const init = await handshake(peer, '2025-11-25');
    assert.equal(init.capabilities.extensions, undefined);
    assert.ok(init.capabilities.tools && init.capabilities.resources);
  });
});

test('a second app tool can share a registered UI by its uri alone; the extension is added once', async () => {
  const { server, ui } = fresh();
  weather(ui);
  ui.tool('refresh', { ui: { uri: URI, visibility: ['app'] } }, () => 'refreshed');
  ui.tool('other', { ui: { uri: 'ui://weather/other.html', html: HTML } }, () => 'x');
  const { peer, send } = await peerAt(server, MODERN);
  try {
    const { tools } = await send('tools/list');
    const refresh = tools.find((t: any) => t.name === 'refresh');
    assert.deepEqual(refresh._meta, { ui: { resourceUri: URI, visibility: ['app'] }, 'ui/resourceUri': URI });
    // §Visibility is the host's to enforce: the server lists and runs app-only tools as any other.
    assert.deepEqual((await send('tools/call', { name: 'refresh' })).content, [{ type: 'text', text: 'refreshed' }]);
    assert.equal((await send('resources/list')).resources.length, 2);
    assert.deepEqual((await send('server/discover')).capabilities.extensions, { [APPS_EXTENSION]: {} });
  } finally {
    await peer.close();
    server.close();
  }
});

test('html may be a function, run on each resources/read with the request context', async () => {
  const { server, ui } = fresh();
  let reads = 0;
  ui.tool('clock', { ui: { uri: 'ui://clock/view', html: async (ctx) => `<p>${++reads} ${ctx.protocolVersion}</p>` } }, () => 'now');
  const { peer, send } = await peerAt(server, MODERN);
  try {
    assert.equal((await send('resources/read', { uri: 'ui://clock/view' })).contents[0].text, `<p>1 ${MODERN}</p>`);
    assert.equal((await send('resources/read', { uri: 'ui://clock/view' })).contents[0].text, `<p>2 ${MODERN}</p>`);
    // No metadata given: no _meta on the listing entry or the content.
    assert.equal((await send('resources/read', { uri: 'ui://clock/view' })).contents[0]._meta, undefined);
    assert.equal((await send('resources/list')).resources[0]._meta, undefined);
  } finally {
    await peer.close();
    server.close();
  }
});

test('an html function that returns no string fails that read with a masked -32603, reported to onError', async () => {
  const errors: unknown[] = [];
  const ui = apps();
  const server = createServer({ name: 'apps', version: '1.0.0', onError: (e) => errors.push(e), extensions: [ui] });
  ui.tool('broken', { ui: { uri: 'ui://broken', html: (() => 42) as never } }, () => 'x');
  const { peer } = await peerAt(server, MODERN);
  try {
    const r = await peer.modern('resources/read', { uri: 'ui://broken' });
    assert.equal(r.error?.code, -32603);
    assert.doesNotMatch(r.error.message, /ui\.html/);
    assert.equal(errors.length, 1);
    assert.match(String((errors[0] as Error).message), /ui\.html of app tool "broken" returned number/);
  } finally {
    await peer.close();
    server.close();
  }
});

test('registration refuses what the spec does not allow, with a JanusError REGISTRATION naming the tool, and leaves nothing behind', async () => {
  const { server, ui } = fresh();
  server.tool('keep', () => 'kept');
  const bad: Array<[Record<string, unknown>, RegExp]> = [
    [{}, /the UI resource URI undefined must start with "ui:\/\/"/],
    [{ uri: 'https://example.com/view.html', html: HTML }, /must start with "ui:\/\/"/],
    [{ uri: 'ui://', html: HTML }, /must start with "ui:\/\/" and name a resource/],
    [{ uri: 'ui://a b', html: HTML }, /not a valid URI/],
    [
      { uri: URI, html: HTML, csp: { connectDomains: ['https://api.example.com/path'] } },
      /csp\.connectDomains: "https:\/\/api\.example\.com\/path" is not an origin/,
    ],
    [{ uri: URI, html: HTML, csp: { connectDomains: ['api.example.com'] } }, /is not an origin/],
    [{ uri: URI, html: HTML, csp: { resourceDomains: ['https://user@cdn.example.com'] } }, /is not an origin/],
    [{ uri: URI, html: HTML, csp: { frameDomains: ['https://www.example.com?x=1'] } }, /is not an origin/],
    [{ uri: URI, html: HTML, csp: { connectDomains: 'https://api.example.com' } }, /csp\.connectDomains must be an array/],
    [{ uri: URI, html: HTML, csp: { scriptDomains: ['https://a.example.com'] } }, /unknown csp list "scriptDomains"/],
    [{ uri: URI, html: HTML, permissions: { camera: true } }, /permissions\.camera must be an object/],
    [{ uri: URI, html: HTML, permissions: { usb: {} } }, /unknown permission "usb"/],
    [{ uri: URI, html: HTML, prefersBorder: 'yes' }, /prefersBorder must be a boolean/],
    [{ uri: URI, html: HTML, domain: '' }, /domain must be a host name/],
    [{ uri: URI, html: HTML, visibility: [] }, /visibility must list/],
    [{ uri: URI, html: HTML, visibility: ['model', 'model'] }, /visibility must list/],
    [{ uri: URI, html: HTML, visibility: ['user'] }, /visibility must list/],
    [{ uri: URI, html: 42 }, /ui\.html must be a string or a function/],
    [{ uri: URI }, /no resource "ui:\/\/weather\/dashboard\.html" is registered/],
    [{ uri: URI, csp: CSP }, /ui\.csp describes the UI resource/],
  ];
  for (const [given, pattern] of bad) {
    assert.throws(() => ui.tool('t', { ui: given } as never, () => 'x'), refused(pattern), JSON.stringify(given));
  }
  assert.throws(() => ui.tool('t', {} as never, () => 'x'), refused(/needs `ui` with at least its `uri`/));
  assert.throws(
    () => ui.tool('t', { _meta: { ui: { resourceUri: URI } }, ui: { uri: URI, html: HTML } }, () => 'x'),
    refused(/set the UI link with `ui`/),
  );
  // A tool refused after its resource was added takes the resource back out.
  assert.throws(() => ui.tool('bad name!', { ui: { uri: URI, html: HTML } }, () => 'x'), refused(/tool name/));
  // Origins as CSP writes them: ports, IPv6, loopback, wildcard subdomains, any scheme.
  const origins = [
    'http://localhost:3000',
    'https://[::1]:8443',
    'wss://live.example.com',
    'https://*.example.com',
    'HTTPS://API.EXAMPLE.COM',
  ];
  fresh()
    .ui.tool('origins', { ui: { uri: 'ui://origins', html: HTML, csp: { connectDomains: origins } } }, () => 'x')
    .remove();
  for (const bad of ['https://a.*.example.com', 'https://*', 'https://example.com/', 'https://example.com#x', '*']) {
    assert.throws(
      () => ui.tool('t', { ui: { uri: URI, html: HTML, csp: { frameDomains: [bad] } } }, () => 'x'),
      refused(/is not an origin/),
      bad,
    );
  }
  // A taken URI is refused before the tool is added.
  server.resource(URI, { name: 'taken' }, 'x');
  assert.throws(() => ui.tool('t', { ui: { uri: URI, html: HTML } }, () => 'x'), refused(/already registered/));
  const { peer, send } = await peerAt(server, MODERN);
  try {
    assert.deepEqual(
      (await send('tools/list')).tools.map((t: any) => t.name),
      ['keep'],
    );
    assert.deepEqual(
      (await send('resources/list')).resources.map((r: any) => r.name),
      ['taken'],
    );
    assert.deepEqual(
      (await send('server/discover')).capabilities.extensions,
      { [APPS_EXTENSION]: {} },
      'nothing registered, but the extension was added: advertised',
    );
  } finally {
    await peer.close();
    server.close();
  }
});

test('update changes tool and resource together (ui merges); a refused update changes neither; remove drops both, telling clients', async () => {
  const { server, ui } = fresh();
  const app = weather(ui);
  server.tool('keep', () => 'kept');
  const { peer, send } = await peerAt(server, '2025-11-25');
  try {
    app.update({ description: 'v2', ui: { html: '<p>v2</p>', prefersBorder: false, visibility: ['model'] } });
    let { tools } = await send('tools/list');
    assert.equal(tools[0].description, 'v2');
    assert.deepEqual(tools[0]._meta.ui, { resourceUri: URI, visibility: ['model'] });
    let read = await send('resources/read', { uri: URI });
    assert.equal(read.contents[0].text, '<p>v2</p>');
    assert.equal(read.contents[0]._meta.ui.prefersBorder, false);
    assert.deepEqual(read.contents[0]._meta.ui.csp, CSP, 'fields not in the patch stay');

    // A new URI moves the resource.
    app.update({ ui: { uri: 'ui://weather/v3.html' } });
    ({ tools } = await send('tools/list'));
    assert.equal(tools[0]._meta.ui.resourceUri, 'ui://weather/v3.html');
    assert.deepEqual(
      (await send('resources/list')).resources.map((r: any) => r.uri),
      ['ui://weather/v3.html'],
    );

    // Refused updates: nothing changes.
    assert.throws(() => app.update({ ui: { csp: { connectDomains: ['nope'] } } }), refused(/not an origin/));
    assert.throws(() => app.update({ ui: { html: undefined } }), refused(/cannot be dropped/));
    assert.throws(() => app.update({ input: z.string() as never }), JanusError);
    // A refused tool takes back the resource its new URI had just registered.
    assert.throws(() => app.update({ input: z.string() as never, ui: { uri: 'ui://weather/v4.html' } }), JanusError);
    server.resource('ui://taken', { name: 'taken' }, 'x');
    assert.throws(() => app.update({ ui: { uri: 'ui://taken' } }), refused(/already registered/));
    ({ tools } = await send('tools/list'));
    assert.equal(tools[0]._meta.ui.resourceUri, 'ui://weather/v3.html');
    assert.deepEqual(
      (await send('resources/list')).resources.map((r: any) => r.uri),
      ['ui://weather/v3.html', 'ui://taken'],
    );
    read = await send('resources/read', { uri: 'ui://weather/v3.html' });
    assert.equal(read.contents[0].text, '<p>v2</p>');

    const before = peer.inbox.length;
    app.remove();
    assert.deepEqual(
      (await send('tools/list')).tools.map((t: any) => t.name),
      ['keep'],
    );
    assert.deepEqual(
      (await send('resources/list')).resources.map((r: any) => r.uri),
      ['ui://taken'],
    );
    const methods = peer.inbox.slice(before).map((m) => m.method);
    assert.ok(methods.includes('notifications/tools/list_changed'), methods.join());
    assert.ok(methods.includes('notifications/resources/list_changed'), methods.join());
  } finally {
    await peer.close();
    server.close();
  }
});

test('what was checked is what is sent: changing the csp object after registration changes nothing on the wire', async () => {
  const { server, ui } = fresh();
  const csp = { connectDomains: ['https://api.example.com'] };
  ui.tool('t', { ui: { uri: URI, html: HTML, csp } }, () => 'x');
  csp.connectDomains.push('not an origin');
  const { peer, send } = await peerAt(server, MODERN);
  try {
    const expected = { ui: { csp: { connectDomains: ['https://api.example.com'] } } };
    assert.deepEqual((await send('resources/read', { uri: URI })).contents[0]._meta, expected);
    assert.deepEqual((await send('resources/list')).resources[0]._meta, expected);
  } finally {
    await peer.close();
    server.close();
  }
});
