/**
 * Client ↔ this project's server over an in-memory pair, for each of the five revisions
 * with the client pinned (`protocolVersion`): features, progress (timeout reset,
 * docs/<rev>/basic/utilities/progress.mdx), cancellation (…/cancellation.mdx), and one set
 * of handlers answering legacy server-to-client requests and 2026-07-28 input_required
 * rounds (docs/2026-07-28/basic/patterns/mrtr.mdx).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ConnectOptions } from '../../src/client/index.js';
import type { ProtocolVersion } from '../../src/protocol/versions.js';
import { FIXTURE_INFO, buildFixtureServer } from '../fixtures/client-server/server.js';
import { asks, cancellation, completion, elicitationDefaults, features, progress } from './battery.js';
import { MODERN, REVISIONS } from '../support/common.js';
import { askHandlers, hasElicitation, inMemory } from './helpers.js';

async function pinned(rev: ProtocolVersion, options: ConnectOptions = {}) {
  return inMemory(buildFixtureServer(), { protocolVersion: rev, ...options });
}

for (const rev of REVISIONS) {
  test(`[${rev}] memory: a pinned client reports era and version, and tools, prompts, resources and templates round-trip`, async () => {
    const { client, wire, close } = await pinned(rev);
    try {
      await features(client, rev);
      // Pinned: no era probe (a legacy revision goes straight to initialize; modern straight to requests).
      assert.equal(wire.sent('server/discover').length, 0);
      assert.equal(wire.sent('initialize').length, rev === MODERN ? 0 : 1);
      if (rev !== MODERN) assert.equal(wire.sent('initialize')[0]!.params.protocolVersion, rev);
    } finally {
      await close();
    }
  });

  test(`[${rev}] memory: completion/complete of a prompt argument and a template variable`, async () => {
    const { client, close } = await pinned(rev);
    try {
      await completion(client);
    } finally {
      await close();
    }
  });

  test(`[${rev}] memory: onProgress sees each notifications/progress and progress resets the request timeout`, async () => {
    const { client, close } = await pinned(rev);
    try {
      await progress(client, rev);
    } finally {
      await close();
    }
  });

  test(`[${rev}] memory: aborting the AbortSignal rejects the call and aborts the server handler's ctx.signal`, async () => {
    const { client, wire, close } = await pinned(rev);
    try {
      await cancellation(client);
      const cancelled = wire.sent('notifications/cancelled');
      assert.equal(cancelled.length, 1);
      const blocked = wire.sent('tools/call').find((m) => m.params.name === 'block')!;
      assert.equal(cancelled[0]!.params.requestId, blocked.id);
    } finally {
      await close();
    }
  });

  test(`[${rev}] memory: onElicit/onSample/onRoots answer the server (${rev === MODERN ? 'input_required rounds' : 'server-to-client requests'}); Promise.all of the asks is one round`, async () => {
    const h = askHandlers();
    const { client, wire, close } = await pinned(rev, h.options);
    try {
      await asks(client, rev, h, wire);
      const serverRequests = wire.got().filter((m) => m.method !== undefined && m.id !== undefined);
      if (rev === MODERN) {
        // mrtr.mdx: a 2026-07-28 server never sends JSON-RPC requests.
        assert.deepEqual(serverRequests, []);
      } else {
        const methods = serverRequests.map((m) => m.method).sort();
        const per = [...(hasElicitation(rev) ? ['elicitation/create'] : []), 'roots/list', 'sampling/createMessage'];
        assert.deepEqual(methods, [...per, ...per].sort());
      }
    } finally {
      await close();
    }
  });

  if (hasElicitation(rev)) {
    test(`[${rev}] memory: accepting an elicitation with {} sends the schema defaults (what the server received)`, async () => {
      const h = askHandlers();
      const { client, close } = await pinned(rev, h.options);
      try {
        await elicitationDefaults(client, h);
        assert.equal(h.calls.elicit, 2);
      } finally {
        await close();
      }
    });
  }
}

test('[2026-07-28] memory: a pinned modern client learns serverInfo (result _meta io.modelcontextprotocol/serverInfo, basic/index.mdx §_meta)', async () => {
  const { client, close } = await pinned(MODERN);
  try {
    await client.listTools();
    assert.deepEqual(client.serverInfo, FIXTURE_INFO);
  } finally {
    await close();
  }
});
