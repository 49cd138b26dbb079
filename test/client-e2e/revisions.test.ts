/**
 * Client ↔ this project's server over real loopback HTTP, for every revision: pinned
 * (`protocolVersion`) and detected (docs/2026-07-28/basic/versioning.mdx §Backward
 * Compatibility; basic/transports/streamable-http.mdx §Backward Compatibility). Each run
 * lists and calls tools with progress, gets a prompt, reads resources, completes, and
 * answers elicitation/sampling/roots through onElicit/onSample/onRoots: on legacy sessions
 * as server-to-client requests arriving on the POST's SSE stream (2025-11-25 transports.mdx
 * §Sending Messages 5-6), on 2026-07-28 as input_required rounds (mrtr.mdx).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connect, type Client } from '../../src/client/index.js';
import type { ProtocolVersion } from '../../src/protocol/versions.js';
import { asks, cancellation, completion, elicitationDefaults, features, progress } from '../client/battery.js';
import { askHandlers, hasElicitation, type Wire } from '../client/helpers.js';
import { MODERN, REVISIONS } from '../support/common.js';
import { until } from '../support/wait.js';
import { recordingFetch, serveFixture, type Exchange } from './support.js';

/** The battery's wire view, built from the recorded HTTP POSTs (what the client sent). */
function wireOf(log: Exchange[]): Wire {
  const sent = (m?: string) =>
    log.filter((e) => e.method === 'POST' && e.body && (m === undefined || e.body.method === m)).map((e) => e.body!);
  return { log: [], sent, got: () => [] };
}

async function battery(
  t: { test: (name: string, fn: () => Promise<void>) => Promise<void> },
  client: Client,
  rev: ProtocolVersion,
  h: ReturnType<typeof askHandlers>,
  log: Exchange[],
) {
  await t.test('features: tools, prompt, resources, template', () => features(client, rev));
  // completion/complete is in every revision's ClientRequest; the server gates 2024-11-05 on the capability.
  if (rev !== '2024-11-05') await t.test('completion/complete', () => completion(client));
  await t.test('progress reaches onProgress over HTTP and resets the timeout', () => progress(client, rev));
  // 2026-07-28 HTTP: closing the request's stream IS the cancellation (no notification); legacy: notifications/cancelled.
  await t.test(
    `AbortSignal → ${rev === MODERN ? 'the POST stream closes' : 'notifications/cancelled'} → ctx.signal aborts on the server`,
    async () => {
      await cancellation(client);
      const block = log.find((e) => e.body?.method === 'tools/call' && e.body.params.name === 'block')!.body!.id;
      const told = log.filter((e) => e.body?.method === 'notifications/cancelled' && e.body.params.requestId === block);
      assert.equal(told.length, rev === MODERN ? 0 : 1);
    },
  );
  const how = rev === MODERN ? 'input_required rounds (one POST per round)' : 'server-to-client requests on the SSE stream';
  await t.test(`onElicit/onSample/onRoots answer ${how}`, async () => {
    await asks(client, rev, h, wireOf(log));
    const calls = log.filter((e) => e.body?.method === 'tools/call' && e.body.params.name === 'ask');
    const answers = log.filter((e) => e.method === 'POST' && e.body && e.body.method === undefined && 'result' in e.body);
    const total = h.calls.elicit + h.calls.sample + h.calls.roots;
    if (rev === MODERN) {
      // mrtr.mdx: the answers ride the retried tools/call as inputResponses; nothing else is POSTed.
      assert.equal(answers.length, 0);
      assert.equal(calls.filter((e) => e.body!.params.inputResponses).length, calls.length - 2);
    } else {
      // The server's requests came on the tools/call POST's own SSE stream; each answer is a POST of its own.
      assert.ok(
        calls.every((e) => e.responseHeaders?.['content-type']?.startsWith('text/event-stream')),
        'ask replied without SSE',
      );
      assert.equal(answers.length, total);
      // A call's result may overtake the 202 of an answer's own POST: wait for those replies.
      await until(() => answers.every((e) => e.status !== undefined), 'the replies to the posted answers');
      assert.ok(answers.every((e) => e.status === 202 && e.headers['mcp-session-id']));
    }
  });
  if (hasElicitation(rev)) await t.test('accepting with {} sends the schema defaults', () => elicitationDefaults(client, h));
}

for (const rev of REVISIONS) {
  test(`[${rev}] pinned over Streamable HTTP: the whole battery`, async (t) => {
    const s = await serveFixture();
    t.after(() => s.close());
    const rec = recordingFetch();
    const h = askHandlers();
    const client = await connect(s.url, { protocolVersion: rev, fetch: rec.fetch, ...h.options });
    try {
      assert.equal(client.transportKind, 'http');
      // Pinned: no probe (versioning.mdx: a pinned client skips discovery).
      assert.equal(rec.posts('server/discover').length, 0);
      assert.equal(rec.posts('initialize').length, rev === MODERN ? 0 : 1);
      await battery(t, client, rev, h, rec.log);
      if (rev !== MODERN) {
        // Every POST after initialize carries the session; 2025-06-18+ also the version header.
        const later = rec.log.filter((e) => e.method === 'POST' && e.body?.method !== 'initialize');
        assert.ok(
          later.every((e) => e.headers['mcp-session-id']),
          'a legacy POST without Mcp-Session-Id',
        );
        const versions = new Set(later.map((e) => e.headers['mcp-protocol-version']));
        assert.deepEqual([...versions], [rev >= '2025-06-18' ? rev : undefined]);
        // The 2026-07-28 request-metadata headers belong to the modern wire only.
        assert.ok(rec.log.every((e) => e.headers['mcp-method'] === undefined && e.headers['mcp-name'] === undefined));
      } else {
        assert.ok(
          rec.log.every((e) => e.headers['mcp-session-id'] === undefined),
          'a modern request with a session id',
        );
      }
    } finally {
      await client.close();
      await s.conns.settled();
      await s.close();
    }
  });
}

const detection: Array<{ name: string; eras?: { legacy?: boolean; modern?: boolean }; rev: ProtocolVersion; initialize: number }> = [
  { name: 'dual-era server → modern', rev: MODERN, initialize: 0 },
  {
    name: 'legacy-only server (eras.modern=false) → legacy 2025-11-25 over Streamable HTTP',
    eras: { modern: false },
    rev: '2025-11-25',
    initialize: 1,
  },
  { name: 'modern-only server (eras.legacy=false) → modern', eras: { legacy: false }, rev: MODERN, initialize: 0 },
];

for (const d of detection) {
  test(`unpinned detection over HTTP: ${d.name}`, async (t) => {
    const s = await serveFixture({ eras: d.eras });
    t.after(() => s.close());
    const rec = recordingFetch();
    const h = askHandlers();
    const client = await connect(s.url, { fetch: rec.fetch, ...h.options });
    try {
      assert.equal(client.era, d.rev === MODERN ? 'modern' : 'legacy');
      assert.equal(client.protocolVersion, d.rev);
      assert.equal(client.transportKind, 'http', 'no fallback to HTTP+SSE');
      // One probe first, always (streamable-http.mdx §Backward Compatibility 1).
      assert.equal(rec.log[0]!.body?.method, 'server/discover');
      assert.equal(rec.posts('server/discover').length, 1);
      assert.equal(rec.posts('initialize').length, d.initialize);
      assert.equal(rec.log.filter((e) => e.method === 'GET' && !e.headers['mcp-session-id']).length, 0, 'no HTTP+SSE GET');
      if (d.rev === MODERN) assert.deepEqual(client.serverInfo, { name: 'client-fixture', version: '1.2.3' });
      await battery(t, client, d.rev, h, rec.log);
    } finally {
      await client.close();
      await s.conns.settled();
      await s.close();
    }
  });
}
