/**
 * The fuzz properties over each transport, shared by the tests (stdio.test.ts, http.test.ts, a
 * few thousand frames inside `npm test`) and by `npm run fuzz` (scripts/fuzz.ts, 100,000 frames
 * per transport). One run is up to MAX_FRAMES frames of the active families (known-failures.ts),
 * written as one burst, line by line or cut at random bytes (stdio), or POSTed whole or chunked
 * (HTTP).
 */
import fc from 'fast-check';
import type { LegacyRevision } from '../support/common.js';
import { type Frame, families } from './arbitraries.js';
import { type BodyWrites, type Delivery, HttpFuzzChannel, type HttpFuzzServer } from './http-channel.js';
import type { AcceptChoice } from './http-headers.js';
import { activeWeights } from './known-failures.js';
import { framesArbitrary, renderFrames } from './plan.js';
import { type FuzzReport, fuzz } from './runner.js';
import { type Chunking, StdioFuzzChannel } from './stdio-channel.js';

export const MAX_FRAMES = 6;
/** Above this many frames per channel the tools that sleep (up to 300 ms) join the runs. */
const SLOW_TOOLS_FROM = 10_000;

const chunking: fc.Arbitrary<Chunking> = fc.oneof(
  { weight: 4, arbitrary: fc.constant<Chunking>({ kind: 'burst' }) },
  { weight: 1, arbitrary: fc.constant<Chunking>({ kind: 'per-line' }) },
  { weight: 2, arbitrary: fc.array(fc.nat(), { minLength: 1, maxLength: 8 }).map((cuts): Chunking => ({ kind: 'split', cuts })) },
);

const delivery: fc.Arbitrary<Delivery> = fc.record({
  writes: fc.oneof(
    { weight: 3, arbitrary: fc.constant<BodyWrites>({ kind: 'whole' }) },
    { weight: 1, arbitrary: fc.array(fc.nat(), { minLength: 1, maxLength: 6 }).map((cuts): BodyWrites => ({ kind: 'chunked', cuts })) },
  ),
  accept: fc.oneof(
    { weight: 6, arbitrary: fc.constant<AcceptChoice>('both') },
    { weight: 1, arbitrary: fc.constantFrom<AcceptChoice>('json', 'sse', 'any', 'none') },
  ),
});

const runsFor = (frames: number) => Math.ceil(frames / ((MAX_FRAMES + 1) / 2));

/** The start of the test's name for a channel (stdio.test.ts, http.test.ts), to replay it alone. */
export function testName(transport: 'stdio' | 'HTTP', session: LegacyRevision | undefined): string {
  return `fuzz over ${transport}, ${session ? `a ${session} session` : 'no session'}`;
}

export interface ChannelReport extends FuzzReport {
  readonly name: string;
}

/** Fuzzes a fresh stdio process whose session is `session` (or none) with about `frames` frames. */
export async function fuzzStdio(session: LegacyRevision | undefined, frames: number): Promise<ChannelReport> {
  const name = `stdio, session ${session ?? 'none'}`;
  const channel = await StdioFuzzChannel.open(session);
  let report: FuzzReport;
  try {
    const all = families({ initialize: session !== undefined, slowTools: frames >= SLOW_TOOLS_FROM });
    report = await fuzz(
      name,
      fc.tuple(framesArbitrary(all, activeWeights('stdio'), MAX_FRAMES), chunking),
      ([f, how]) => channel.run(f, how),
      {
        numRuns: runsFor(frames),
        render: ([f, how]: [Frame[], Chunking]) => [`chunking: ${JSON.stringify(how)}`, renderFrames(f)].join('\n'),
        replay: `node --test --test-name-pattern="${testName('stdio', session)}" dist/test/fuzz/stdio.test.js`,
      },
    );
  } finally {
    await channel.close();
  }
  // The process must end cleanly once its stdin closes (stdio transports: the client's way to end it).
  const problems = await channel.close();
  if (problems.length > 0) throw new Error(`${name}: ${problems.join('; ')}`);
  return { ...report, name, frames: channel.frames };
}

/** Fuzzes `server` over a channel with a legacy session at `session` (or none) with about `frames` frames. */
export async function fuzzHttp(server: HttpFuzzServer, session: LegacyRevision | undefined, frames: number): Promise<ChannelReport> {
  const name = `HTTP, session ${session ?? 'none'}`;
  const channel = await HttpFuzzChannel.open(server, session);
  const all = families({ initialize: true, slowTools: frames >= SLOW_TOOLS_FROM });
  const report = await fuzz(
    name,
    fc.tuple(framesArbitrary(all, activeWeights('http'), MAX_FRAMES), delivery),
    ([f, how]) => channel.run(f, how),
    {
      numRuns: runsFor(frames),
      render: ([f, how]: [Frame[], Delivery]) => [`delivery: ${JSON.stringify(how)}`, renderFrames(f)].join('\n'),
      replay: `node --test --test-name-pattern="${testName('HTTP', session)}" dist/test/fuzz/http.test.js`,
    },
  );
  return { ...report, name, frames: channel.frames };
}
