/**
 * Property tests of the example server over stdio (a real child process): random and hostile
 * frames of every family (arbitraries.ts) on an uninitialized channel, a 2025-11-25 session and
 * a 2025-03-26 session (the one revision with batches), both eras on each. What must hold is in
 * stdio-channel.ts; what each frame is owed, in model.ts. A failure prints its seed and the
 * shrunk frames; `JANUS_FUZZ_SEED=… JANUS_FUZZ_PATH=…` replays it.
 */
import { test } from 'node:test';
import { fuzzStdio, testName } from './properties.js';
import { frameBudget } from './runner.js';

for (const session of [undefined, '2025-11-25', '2025-03-26'] as const) {
  test(`${testName('stdio', session)} and 2026-07-28: no crash, no hang, the right error codes, schema-valid answers, nothing for notifications`, async () => {
    await fuzzStdio(session, frameBudget(800));
  });
}
