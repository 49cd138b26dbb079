/**
 * Property tests of the example server over Streamable HTTP (`serveHttp` on 127.0.0.1:0 in a
 * real child process): the frame families of arbitraries.ts POSTed one per request, a run at a
 * time, without a session, in a 2025-11-25 session and in a 2025-03-26 session (batches), both
 * eras in each. What must hold is in http-channel.ts and model.ts. A failure prints its seed and
 * the shrunk frames; `JANUS_FUZZ_SEED=… JANUS_FUZZ_PATH=…` replays it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { HttpFuzzServer } from './http-channel.js';
import { fuzzHttp, testName } from './properties.js';
import { frameBudget } from './runner.js';

let server: HttpFuzzServer;
before(async () => {
  server = await HttpFuzzServer.start();
});
after(async () => {
  assert.deepEqual(await server.stop(), [], 'the server exits cleanly on SIGTERM');
});

for (const session of [undefined, '2025-11-25', '2025-03-26'] as const) {
  test(`${testName('HTTP', session)} and 2026-07-28: no crash, no hang, the right statuses and error codes, schema-valid answers, 202 for notifications`, async () => {
    await fuzzHttp(server, session, frameBudget(800));
  });
}
