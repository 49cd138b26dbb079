/**
 * `npm run fuzz`: the fuzz properties of test/fuzz at full size, 100,000 frames per transport
 * by default, split over its three channels (no session, a 2025-11-25 session, a 2025-03-26
 * session), against the example server (test/fixtures/everything) in a child process. Prints the
 * frames and runs per channel, the seed, and on failure the replay command and the shrunk
 * frames; exits 1 on failure.
 *
 *   node dist/scripts/fuzz.js [--frames 100000] [--transports stdio,http] [--seed N]
 *   JANUS_FUZZ_FAMILIES=deep/meta node dist/scripts/fuzz.js   (some families only, known failures included)
 */
import { HttpFuzzServer } from '../test/fuzz/http-channel.js';
import { type ChannelReport, fuzzHttp, fuzzStdio } from '../test/fuzz/properties.js';

const SESSIONS = [undefined, '2025-11-25', '2025-03-26'] as const;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

const frames = Number(arg('frames', '100000'));
const transports = arg('transports', 'stdio,http').split(',');
const seed = arg('seed', '');
if (seed !== '') process.env.JANUS_FUZZ_SEED = seed;
const perChannel = Math.ceil(frames / SESSIONS.length);

const reports: ChannelReport[] = [];
const failures: string[] = [];
async function channel(run: () => Promise<ChannelReport>): Promise<void> {
  const t0 = performance.now();
  try {
    const r = await run();
    reports.push(r);
    console.log(`${r.name}: ${r.frames} frames in ${r.runs} runs, ${((performance.now() - t0) / 1000).toFixed(1)} s, seed ${r.seed}: OK`);
  } catch (e) {
    const text = e instanceof Error ? e.message : String(e);
    failures.push(text);
    console.log(`FAILED ${text}\n`);
  }
}

if (transports.includes('stdio')) for (const s of SESSIONS) await channel(() => fuzzStdio(s, perChannel));
if (transports.includes('http')) {
  const server = await HttpFuzzServer.start();
  for (const s of SESSIONS) await channel(() => fuzzHttp(server, s, perChannel));
  const stopped = await server.stop();
  if (stopped.length > 0) failures.push(...stopped);
}
const total = reports.reduce((n, r) => n + r.frames, 0);
console.log(`\nFUZZ: ${failures.length === 0 ? 'OK' : `${failures.length} FAILED`} (${total} frames)`);
process.exitCode = failures.length === 0 ? 0 : 1;
