/**
 * MCP Apps on the client, the host's side (ext-apps specification 2026-01-26): declaring
 * support through `ConnectOptions.extensions` (§Client (Host) Capabilities, on 2026-07-28's
 * per-request `_meta` capabilities), finding a tool's UI (`_meta.ui.resourceUri`, else the
 * deprecated `_meta["ui/resourceUri"]`), reading it with `resources/read` (§UI Resource Format:
 * `text/html;profile=mcp-app`, text or base64 blob, `_meta.ui` from the content, else the listing
 * entry per draft §Metadata Location), and hiding app-only tools from the model (§Visibility).
 * Against this project's server, over an in-memory pair and real HTTP on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { APP_MIME_TYPE, APPS_EXTENSION, appsExtension, connect, visibleToModel, type Client } from '../../src/client/index.js';
import { JanusError } from '../../src/errors/index.js';
import { bytesToBase64 } from '../../src/protocol/base64.js';
import type { ProtocolVersion } from '../../src/protocol/versions.js';
import { clientDeclares } from '../../src/spi/index.js';
import { createServer, type Server } from '../../src/server/index.js';
import { apps } from '../../src/extensions/apps/index.js';
import { serveHttp } from '../../src/transports/http/index.js';
import { inMemory } from '../client/helpers.js';
import { MODERN } from '../support/common.js';
import { wireValidator } from '../support/wire-schema.js';

const URI = 'ui://weather/dashboard.html';
const HTML = '<!DOCTYPE html><html><body>weather</body></html>';
const CSP = { connectDomains: ['https://api.example.com'], resourceDomains: ['https://*.cdn.example.com'] };
/** Revisions whose tools and resources carry `_meta`, so the link reaches the client. */
const WITH_META: ProtocolVersion[] = ['2025-06-18', '2025-11-25', MODERN];

function appServer(): Server {
  const ui = apps();
  const server = createServer({ name: 'apps', version: '1.0.0', extensions: [ui] });
  ui.tool(
    'weather',
    { description: 'Weather', ui: { uri: URI, html: HTML, csp: CSP, permissions: { microphone: {} }, prefersBorder: true } },
    () => 'sunny',
  );
  ui.tool('refresh', { ui: { uri: URI, visibility: ['app'] } }, () => 'refreshed');
  server.tool('plain', () => 'plain');
  // Not through ui.tool: shapes a server of another make may send.
  server.resource('ui://text', { name: 'text', mimeType: 'text/html' }, '<p>not an app</p>');
  server.tool('wrong-mime', { _meta: { ui: { resourceUri: 'ui://text' } } }, () => 'x');
  server.resource('ui://listed', { name: 'listed', mimeType: APP_MIME_TYPE, _meta: { ui: { prefersBorder: false, csp: CSP } } }, (uri) => ({
    uri,
    mimeType: 'Text/HTML; profile="mcp-app"',
    blob: bytesToBase64(new TextEncoder().encode('<p>blob ✓</p>')),
  }));
  server.tool('flat-key', { _meta: { 'ui/resourceUri': 'ui://listed' } }, () => 'x');
  server.resource(
    'ui://both',
    { name: 'both', mimeType: APP_MIME_TYPE, _meta: { ui: { prefersBorder: false, domain: 'listed.example' } } },
    (uri) => ({
      uri,
      mimeType: APP_MIME_TYPE,
      text: '<p>both</p>',
      _meta: { ui: { prefersBorder: true } },
    }),
  );
  server.tool('both', { _meta: { ui: { resourceUri: 'ui://both' } } }, () => 'x');
  server.resource('ui://bad-csp', { name: 'bad' }, (uri) => ({
    uri,
    mimeType: APP_MIME_TYPE,
    text: 'x',
    _meta: { ui: { csp: { connectDomains: ['*'] } } },
  }));
  server.tool('bad-csp', { _meta: { ui: { resourceUri: 'ui://bad-csp' } } }, () => 'x');
  server.tool('bad-link', { _meta: { ui: { resourceUri: 'https://example.com/x' } } }, () => 'x');
  server.tool('declared', (_args, ctx) =>
    JSON.stringify([clientDeclares(ctx.client, APPS_EXTENSION), ctx.client.capabilities.extensions?.[APPS_EXTENSION] ?? null]),
  );
  return server;
}

function protocolError(pattern: RegExp): (e: unknown) => boolean {
  return (e) => {
    assert.ok(e instanceof JanusError, `expected a JanusError, got ${String(e)}`);
    assert.equal(e.code, 'PROTOCOL');
    assert.match(e.message, pattern);
    return true;
  };
}

async function readsTheWeatherApp(client: Client): Promise<void> {
  const app = await client.readApp('weather');
  assert.deepEqual(app, {
    tool: 'weather',
    uri: URI,
    mimeType: APP_MIME_TYPE,
    html: HTML,
    visibility: ['model', 'app'],
    meta: { csp: CSP, permissions: { microphone: {} }, prefersBorder: true },
    csp: CSP,
    permissions: { microphone: {} },
    prefersBorder: true,
  });
  const tools = await client.listAllTools();
  const refresh = tools.find((t) => t.name === 'refresh')!;
  assert.deepEqual(client.appOf(refresh), { resourceUri: URI, visibility: ['app'] });
  assert.equal(client.appOf(tools.find((t) => t.name === 'plain')!), undefined);
  // §Visibility: the host offers the model every tool but the app-only one (a malformed link does not throw here).
  assert.deepEqual(
    tools.filter(visibleToModel).map((t) => t.name),
    tools.map((t) => t.name).filter((n) => n !== 'refresh'),
  );
  assert.equal((await client.readApp(refresh)).html, HTML, 'a tool sharing the UI reads the same page');
}

for (const rev of WITH_META) {
  test(`[${rev}] memory: readApp returns the tool's UI: html, MIME type, csp, permissions, prefersBorder, visibility`, async () => {
    const { client, close } = await inMemory(appServer(), { protocolVersion: rev });
    try {
      await readsTheWeatherApp(client);
    } finally {
      await close();
    }
  });

  test(`[${rev}] memory: readApp errors clearly: no UI, not the app MIME type, no such tool, a malformed link or csp`, async () => {
    const { client, close } = await inMemory(appServer(), { protocolVersion: rev });
    try {
      await assert.rejects(client.readApp('plain'), protocolError(/tool "plain" has no UI/));
      await assert.rejects(client.readApp('wrong-mime'), protocolError(/"text\/html", not an MCP App \(text\/html;profile=mcp-app\)/));
      await assert.rejects(client.readApp('missing'), protocolError(/lists no tool "missing"/));
      await assert.rejects(client.readApp('bad-link'), protocolError(/tool "bad-link": .*must start with "ui:\/\/"/));
      await assert.rejects(client.readApp('bad-csp'), protocolError(/csp\.connectDomains: "\*" is not an origin/));
    } finally {
      await close();
    }
  });

  test(`[${rev}] memory: the deprecated flat key links too; a blob is decoded; _meta.ui falls back to the listing entry`, async () => {
    const { client, close } = await inMemory(appServer(), { protocolVersion: rev });
    try {
      const app = await client.readApp('flat-key');
      assert.equal(app.uri, 'ui://listed');
      assert.equal(app.html, '<p>blob ✓</p>');
      assert.equal(app.mimeType, 'Text/HTML; profile="mcp-app"');
      assert.deepEqual(app.meta, { prefersBorder: false, csp: CSP });
      assert.equal(app.prefersBorder, false);
      // On both: the content item's _meta.ui wins, whole.
      const both = await client.readApp('both');
      assert.deepEqual(both.meta, { prefersBorder: true });
      assert.equal(both.domain, undefined);
    } finally {
      await close();
    }
  });
}

test(`[${MODERN}] extensions: ConnectOptions.extensions (here appsExtension() and another) is declared in every request's _meta capabilities, valid against the schema, and seen by the server`, async () => {
  const extensions = { 'example.com/other': { level: 2 }, ...appsExtension() };
  const { client, wire, close } = await inMemory(appServer(), { protocolVersion: MODERN, extensions });
  try {
    const result = await client.callTool('declared');
    const declared = { mimeTypes: [APP_MIME_TYPE] };
    assert.deepEqual(JSON.parse((result.content[0] as { text: string }).text), [true, declared]);
    for (const method of ['tools/list', 'resources/read', 'tools/call']) {
      if (method !== 'tools/call') await client.request(method, method === 'resources/read' ? { uri: URI } : {});
      const sent = wire.sent(method)[0]!;
      const caps = sent.params._meta['io.modelcontextprotocol/clientCapabilities'];
      assert.deepEqual(caps.extensions[APPS_EXTENSION], declared, method);
      assert.deepEqual(caps.extensions['example.com/other'], { level: 2 }, 'any extension, with its settings');
    }
    for (const m of wire.sent()) wireValidator().assertClientMessage(MODERN, m);
  } finally {
    await close();
  }
});

test(`[${MODERN}] extensions: without the option no extensions are declared`, async () => {
  const { client, wire, close } = await inMemory(appServer(), { protocolVersion: MODERN });
  try {
    assert.deepEqual(JSON.parse(((await client.callTool('declared')).content[0] as { text: string }).text), [false, null]);
    assert.equal(
      wire.sent('tools/call')[0]!.params._meta['io.modelcontextprotocol/clientCapabilities'].extensions?.[APPS_EXTENSION],
      undefined,
    );
  } finally {
    await close();
  }
});

test('[2025-11-25] extensions: initialize does not carry capabilities.extensions, which the revision lacks', async () => {
  const { client, wire, close } = await inMemory(appServer(), { protocolVersion: '2025-11-25', extensions: appsExtension() });
  try {
    assert.equal(wire.sent('initialize')[0]!.params.capabilities.extensions, undefined);
    for (const m of wire.sent()) wireValidator().assertClientMessage('2025-11-25', m);
    await readsTheWeatherApp(client);
  } finally {
    await close();
  }
});

for (const rev of ['2025-11-25', MODERN] as const) {
  test(`[${rev}] HTTP on 127.0.0.1: the client reads the app (pinned legacy, or detecting the modern era)`, async () => {
    const server = appServer();
    const handle = await serveHttp(server, { port: 0, host: '127.0.0.1' });
    const client = await connect(handle.url, rev === MODERN ? { extensions: appsExtension() } : { protocolVersion: rev });
    try {
      assert.equal(client.protocolVersion, rev);
      await readsTheWeatherApp(client);
    } finally {
      await client.close();
      await handle.close();
      server.close();
    }
  });
}
