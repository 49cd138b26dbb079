/**
 * The known failures (known-failures.ts) still fail, each on its minimal frame, on every
 * transport it is listed for. When a fix lands, its entry fails here: remove it, and its family
 * joins the main properties (stdio.test.ts, http.test.ts). The list may only shrink.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { HttpFuzzChannel, HttpFuzzServer } from './http-channel.js';
import { BASE_WEIGHTS, KNOWN_FAILURES } from './known-failures.js';
import { StdioFuzzChannel } from './stdio-channel.js';

/** A known failure that is a hang needs no ten seconds to show it still hangs. */
const BOUND_MS = 3000;

let server: HttpFuzzServer;
before(async () => {
  server = await HttpFuzzServer.start();
});
after(async () => {
  await server.stop();
});

test('every known failure names a family the fuzzers generate', () => {
  for (const k of KNOWN_FAILURES) assert.ok(k.family in BASE_WEIGHTS, `unknown family ${k.family}`);
});

for (const known of KNOWN_FAILURES) {
  for (const transport of known.transports) {
    test(`known failure still fails over ${transport} (remove it from known-failures.ts once fixed): ${known.family}`, async () => {
      const frame = [{ family: known.family, value: undefined, text: known.reproducer.text }];
      let problems: string[];
      if (transport === 'stdio') {
        const channel = await StdioFuzzChannel.open(known.reproducer.session, BOUND_MS);
        try {
          problems = await channel.run(frame, { kind: 'burst' });
        } finally {
          await channel.close();
        }
      } else {
        const channel = await HttpFuzzChannel.open(server, known.reproducer.session, BOUND_MS);
        problems = await channel.run(frame, { writes: { kind: 'whole' }, accept: 'both' });
      }
      assert.notDeepEqual(problems, [], `${known.family} passes over ${transport} now: ${known.why}. Remove it from KNOWN_FAILURES.`);
    });
  }
}
