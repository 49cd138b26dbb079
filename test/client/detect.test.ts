/**
 * Era detection when the client is not pinned: docs/2026-07-28/basic/versioning.mdx
 * §Backward Compatibility and basic/transports/stdio.mdx.
 * Probe with server/discover; a DiscoverResult or -32022 means a modern server (re-pick the
 * version from `supported`, legacy ones meaning initialize); -32020/-32021 are raised, not
 * fallen back from; any other error or silence means legacy, whatever the code.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connect } from '../../src/client/index.js';
import { McpError } from '../../src/errors/index.js';
import { FIXTURE_INFO, FIXTURE_INSTRUCTIONS, buildFixtureServer } from '../fixtures/client-server/server.js';
import type { Msg } from '../support/common.js';
import { SILENT_LEGACY, initializeResult, inMemory, scripted, spawnFixture, textOf } from './helpers.js';

const DISCOVER_OK = {
  resultType: 'complete',
  supportedVersions: ['2026-07-28'],
  capabilities: { tools: {} },
  ttlMs: 0,
  cacheScope: 'private',
  _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'm', version: '1' } },
};

/** A scripted server whose answer to server/discover is `probe`; it speaks legacy otherwise. */
function withProbe(probe: (msg: Msg) => Msg | { error: Msg } | undefined) {
  return scripted((msg) => {
    if (msg.method === 'server/discover') return probe(msg);
    if (msg.method === 'initialize') return initializeResult(msg);
    if (msg.method === 'tools/list') return { tools: [] };
    return { error: { code: -32601, message: 'Method not found' } };
  });
}

test('a dual-era server answers server/discover → modern; serverInfo, capabilities and instructions come from the DiscoverResult', async () => {
  const { client, wire, close } = await inMemory(buildFixtureServer());
  try {
    assert.equal(client.era, 'modern');
    assert.equal(client.protocolVersion, '2026-07-28');
    assert.deepEqual(client.serverInfo, FIXTURE_INFO);
    assert.equal(client.instructions, FIXTURE_INSTRUCTIONS);
    assert.ok(client.serverCapabilities.tools);
    await client.listTools();
    await client.callTool('echo', { text: 'x' });
    // Decided once per server: no second probe, never an initialize.
    assert.deepEqual(
      wire.sent().map((m) => m.method),
      ['server/discover', 'tools/list', 'tools/call'],
    );
  } finally {
    await close();
  }
});

test('a legacy-only server (eras.modern=false) refuses the probe → legacy initialize with the best mutual revision', async () => {
  const { client, wire, close } = await inMemory(buildFixtureServer({ eras: { modern: false } }));
  try {
    assert.equal(client.era, 'legacy');
    assert.equal(client.protocolVersion, '2025-11-25');
    assert.deepEqual(client.serverInfo, FIXTURE_INFO);
    assert.deepEqual(
      wire.sent().map((m) => m.method),
      ['server/discover', 'initialize', 'notifications/initialized'],
    );
    assert.equal(wire.sent('initialize')[0]!.params.protocolVersion, '2025-11-25');
    assert.equal(textOf(await client.callTool('echo', { text: 'old' })), 'echo: old');
  } finally {
    await close();
  }
});

test('a modern-only server (eras.legacy=false) → modern, and no initialize is ever sent', async () => {
  const { client, wire, close } = await inMemory(buildFixtureServer({ eras: { legacy: false } }));
  try {
    assert.equal(client.era, 'modern');
    assert.equal(textOf(await client.callTool('echo', { text: 'new' })), 'echo: new');
    assert.equal(wire.sent('initialize').length, 0);
  } finally {
    await close();
  }
});

test('stdio: a running server that never answers server/discover → legacy, probeTimeoutMs after its answer to the ping (stdio.mdx: "does not respond within a reasonable timeout")', async () => {
  const { channel } = spawnFixture(SILENT_LEGACY);
  const started = Date.now();
  const client = await connect(channel, { probeTimeoutMs: 300 });
  try {
    const elapsed = Date.now() - started;
    // The ping goes out after min(1 s, probeTimeoutMs) = 300 ms; its answer starts the 300 ms clock.
    assert.ok(elapsed >= 600, `fell back after ${elapsed} ms, before the probe timed out`);
    assert.ok(elapsed < 3500, `took ${elapsed} ms: probeTimeoutMs was not honoured (default 3000)`);
    assert.equal(client.era, 'legacy');
    assert.equal(client.protocolVersion, '2025-11-25');
    assert.deepEqual(client.serverInfo, { name: 'silent-legacy', version: '0.0.1' });
    const seen = JSON.parse(textOf(await client.callTool('received'))) as string[];
    assert.equal(seen[0], 'server/discover');
    assert.deepEqual(
      seen.filter((m) => m !== 'notifications/cancelled'),
      ['server/discover', 'ping', 'initialize', 'notifications/initialized', 'tools/call'],
    );
  } finally {
    await client.close();
  }
});

test('-32022 whose `supported` lists only legacy versions → initialize with the newest of them', async () => {
  const s = withProbe((msg) => ({
    error: {
      code: -32022,
      message: 'Unsupported protocol version',
      data: {
        supported: ['2024-11-05', '2025-06-18', '2025-03-26'],
        requested: msg.params._meta['io.modelcontextprotocol/protocolVersion'],
      },
    },
  }));
  const client = await connect(s.transport);
  try {
    assert.equal(client.era, 'legacy');
    assert.equal(client.protocolVersion, '2025-06-18');
    assert.deepEqual(
      s.wire.sent().map((m) => m.method),
      ['server/discover', 'initialize', 'notifications/initialized'],
    );
    assert.equal(s.wire.sent('initialize')[0]!.params.protocolVersion, '2025-06-18');
  } finally {
    await client.close();
  }
});

test('a DiscoverResult whose supportedVersions are all legacy → initialize with the best mutual one', async () => {
  const s = withProbe(() => ({ ...DISCOVER_OK, supportedVersions: ['2024-11-05', '2025-03-26'] }));
  const client = await connect(s.transport);
  try {
    assert.equal(client.era, 'legacy');
    assert.equal(s.wire.sent('initialize')[0]!.params.protocolVersion, '2025-03-26');
  } finally {
    await client.close();
  }
});

test('-32022 listing no version this client speaks → connect fails with ERA_DETECTION, no initialize', async () => {
  const s = withProbe(() => ({ error: { code: -32022, message: 'nope', data: { supported: ['2099-01-01'], requested: '2026-07-28' } } }));
  await assert.rejects(connect(s.transport), { name: 'JanusError', code: 'ERA_DETECTION' });
  assert.equal(s.wire.sent('initialize').length, 0);
});

for (const [code, name] of [
  [-32021, 'MissingRequiredClientCapability'],
  [-32020, 'HeaderMismatch'],
] as const) {
  test(`${code} (${name}) during the probe is raised, not fallen back from (versioning.mdx)`, async () => {
    const data = code === -32021 ? { requiredCapabilities: { elicitation: {} } } : undefined;
    const s = withProbe(() => ({ error: { code, message: name, ...(data ? { data } : {}) } }));
    await assert.rejects(connect(s.transport), (e: unknown) => e instanceof McpError && e.code === code);
    assert.deepEqual(
      s.wire.sent().map((m) => m.method),
      ['server/discover'],
    );
  });
}

for (const code of [-32601, -32602, -32600, -32603, -32000]) {
  test(`any other error to the probe (${code}) means a legacy server: the fallback does not depend on one code (versioning.mdx)`, async () => {
    const s = withProbe(() => ({ error: { code, message: 'no' } }));
    const client = await connect(s.transport);
    try {
      assert.equal(client.era, 'legacy');
      assert.equal(client.protocolVersion, '2025-11-25');
    } finally {
      await client.close();
    }
  });
}

test("era: 'legacy' up front skips the probe: the first message is initialize", async () => {
  const { client, wire, close } = await inMemory(buildFixtureServer(), { era: 'legacy' });
  try {
    assert.equal(client.era, 'legacy');
    assert.equal(client.protocolVersion, '2025-11-25');
    await client.listTools();
    assert.deepEqual(
      wire.sent().map((m) => m.method),
      ['initialize', 'notifications/initialized', 'tools/list'],
    );
  } finally {
    await close();
  }
});

test("era: 'modern' up front skips the probe: nothing is sent until the first request, and no server/discover", async () => {
  const { client, wire, close } = await inMemory(buildFixtureServer(), { era: 'modern' });
  try {
    assert.equal(client.era, 'modern');
    assert.equal(client.protocolVersion, '2026-07-28');
    assert.deepEqual(wire.sent(), []);
    await client.listTools();
    assert.deepEqual(
      wire.sent().map((m) => m.method),
      ['tools/list'],
    );
  } finally {
    await close();
  }
});
