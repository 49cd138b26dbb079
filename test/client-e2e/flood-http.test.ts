/**
 * A legacy server that floods the client with requests over Streamable HTTP (2025-11-25
 * transports.mdx §Listening for Messages: server requests on the standalone GET stream; each
 * response is a POST of its own). The client serves `maxServerRequests` (16) at once and
 * refuses the rest with -32603, sending those refusals 16 at a time with at most 64 × 16
 * waiting; beyond that a request gets no answer and `onWarning` says so. So the POSTs in
 * flight stay bounded however many requests arrive (client/sampling.mdx, client/elicitation.mdx
 * §Security Considerations: clients SHOULD rate-limit).
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { test } from 'node:test';
import { connect } from '../../src/client/index.js';
import { json, readingBody } from '../support/http.js';
import { until } from '../support/wait.js';
import { nodeServer } from './support.js';

const FLOOD = 2000;

test(`${FLOOD} server requests at once: at most 16 served and 16 refusals in flight, 1024 refusals queued, the rest dropped with a warning`, async () => {
  const held: ServerResponse[] = [];
  let open = 0;
  let most = 0;
  let release = false;
  const answers: Array<{ id: string; error?: { code: number; message: string } }> = [];
  const server = await nodeServer(
    readingBody((req, res, body) => {
      if (req.method === 'DELETE') return res.writeHead(200).end();
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        let frames = '';
        for (let i = 0; i < FLOOD; i++) frames += `data: ${JSON.stringify({ jsonrpc: '2.0', id: `srv-${i}`, method: 'ping' })}\n\n`;
        return res.write(frames);
      }
      const m = JSON.parse(body);
      if (m.method === 'initialize') {
        return json(
          res,
          200,
          {
            jsonrpc: '2.0',
            id: m.id,
            result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'flood', version: '1' } },
          },
          { 'mcp-session-id': 'f1' },
        );
      }
      if (m.method !== undefined) return res.writeHead(202).end();
      // A response to one of our requests: held open until the test releases them.
      answers.push(m);
      if (release) return res.writeHead(202).end();
      open++;
      most = Math.max(most, open);
      held.push(res);
    }),
  );
  const warnings: string[] = [];
  const client = await connect(server.url, { protocolVersion: '2025-11-25', onWarning: (w) => warnings.push(w) });
  try {
    await until(() => warnings.length > 0 || open > 32, 'the flood to be refused (a warning) or the POSTs to pile up', 20_000);
    await until(() => open === 32 || open > 32, 'the 32 POSTs in flight', 20_000);
    assert.equal(most, 32, '16 responses and 16 refusals in flight, never more');
    assert.match(
      warnings[0]!,
      /the server sends requests faster than this client can refuse them \(it serves 16 at once: maxServerRequests\): ping/,
    );
    assert.equal(warnings.length, 1, 'one warning for the flood, not one per request');

    release = true;
    for (const res of held.splice(0)) res.writeHead(202).end();
    open = 0;
    const expected = 16 + 16 + 64 * 16;
    await until(() => answers.length === expected, `${expected} answers`, 20_000);
    const refused = answers.filter((a) => a.error);
    assert.equal(refused.length, expected - 16);
    assert.ok(refused.every((a) => a.error!.code === -32603 && /maxServerRequests/.test(a.error!.message)));
    assert.equal(answers.filter((a) => !a.error).length, 16, 'the 16 served pings were answered');
    assert.equal(new Set(answers.map((a) => a.id)).size, expected, 'each answered once');
  } finally {
    release = true;
    for (const res of held.splice(0)) res.writeHead(202).end();
    await client.close();
    await server.close();
  }
});
