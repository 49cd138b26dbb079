/**
 * Every message the client puts on the wire conforms to the official schema.json of the
 * revision in use (test/support/wire-schema.ts): requests,
 * notifications (initialized, cancelled) and its responses to server requests (legacy
 * elicitation/sampling/roots answers), plus the 2026-07-28 envelope, MRTR retries with
 * inputResponses/requestState and subscriptions/listen. Runs the round-trip battery in
 * memory and checks the recorded transcript.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { wireValidator, type WireValidator } from '../support/wire-schema.js';
import { buildFixtureServer } from '../fixtures/client-server/server.js';
import { asks, cancellation, completion, elicitationDefaults, features, progress } from './battery.js';
import { MODERN, REVISIONS } from '../support/common.js';
import { until } from '../support/wait.js';
import { askHandlers, hasElicitation, inMemory, type Wire } from './helpers.js';

function checkTranscript(v: WireValidator, rev: string, wire: Wire): number {
  // The method of each server request, so the client's response is checked against its result type.
  const asked = new Map<string | number, string>();
  for (const m of wire.got()) if (m.method !== undefined && m.id !== undefined) asked.set(m.id, m.method);
  let checked = 0;
  for (const msg of wire.sent()) {
    v.assertClientMessage(rev, msg, { requestMethod: (id) => (id === undefined ? undefined : asked.get(id)) });
    checked++;
  }
  return checked;
}

for (const rev of REVISIONS) {
  test(`[${rev}] every client message in a full session validates against the ${rev} schema.json`, async (_t) => {
    const v = wireValidator();
    const h = askHandlers();
    const { client, wire, close } = await inMemory(buildFixtureServer(), {
      protocolVersion: rev,
      logLevel: 'debug',
      clientInfo: { name: 'wire', version: '1' },
      ...h.options,
    });
    try {
      await features(client, rev);
      // 2024-11-05: the request is valid even though this server answers -32601 (see the memory suite).
      await (rev === '2024-11-05'
        ? client.complete({ type: 'ref/prompt', name: 'greet' }, { name: 'name', value: 'A' }).catch(() => {})
        : completion(client));
      await progress(client, rev, { control: false });
      await cancellation(client);
      await asks(client, rev, h, wire);
      if (hasElicitation(rev)) await elicitationDefaults(client, h);
      if (rev === MODERN) {
        const stream = client.listen({ toolsListChanged: true, resourceSubscriptions: ['fixture://static'] });
        await until(() => wire.got('notifications/subscriptions/acknowledged').length === 1);
        await stream.return!();
        await until(() => wire.sent('notifications/cancelled').length === 2, 'the listen cancellation');
      } else {
        await client.ping();
      }
    } finally {
      await close();
    }
    const kinds = new Set(wire.sent().map((m) => m.method ?? 'response'));
    const expected =
      rev === MODERN
        ? [
            'tools/call',
            'tools/list',
            'prompts/get',
            'resources/read',
            'completion/complete',
            'notifications/cancelled',
            'subscriptions/listen',
          ]
        : ['initialize', 'notifications/initialized', 'logging/setLevel', 'tools/call', 'notifications/cancelled', 'ping', 'response'];
    for (const k of expected) assert.ok(kinds.has(k), `transcript has ${k}: ${[...kinds]}`);
    assert.ok(checkTranscript(v, rev, wire) > 20);
  });
}
