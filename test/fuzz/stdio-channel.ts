/**
 * The example server (test/fixtures/everything, `main.js --stdio`) in a real child process, fuzzed
 * over its stdin. One channel is one process with one legacy session (stdio has exactly one),
 * initialized or not, which also carries 2026-07-28 requests. Per run the harness writes the
 * frames as one burst (or line by line, or cut at random bytes, UTF-8 sequences included),
 * then known-good requests, and judges everything stdout carries until every owed answer came:
 * - no crash: the process is alive after every run;
 * - no hang: every request with an id is answered within ANSWER_BOUND_MS (runner.ts);
 * - answers as model.ts says, valid against the schema (judge.ts); nothing for notifications;
 * - nothing but protocol on stdout (2025-11-25 transports §stdio);
 * - quiet: a client's mistake prints nothing on stderr (only a handler of the example may);
 * - a good request is answered correctly afterwards, in each era.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLIENT, TEXT } from '../support/everything-fixture.js';
import { type Id, type LegacyRevision, MODERN, type Msg } from '../support/common.js';
import { modernMeta } from '../support/peer.js';
import { truncateJson } from '../support/wire-schema.js';
import type { Frame } from './arbitraries.js';
import { describe, schemaProblems, StreamJudge } from './judge.js';
import type { Context, Expectation } from './model.js';
import { plan } from './plan.js';
import { ANSWER_BOUND_MS } from './runner.js';
import { IdAllocator } from './wire-text.js';

/** test/fixtures/everything/main.js in the compiled tree (test/fuzz/ → the dist root). */
export const EXAMPLE_MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'everything', 'main.js');

/** How the bytes of a run reach the pipe. */
export type Chunking =
  | { readonly kind: 'burst' }
  | { readonly kind: 'per-line' }
  | { readonly kind: 'split'; readonly cuts: readonly number[] };

const GOOD = 'janus-fuzz-good-';
/** Output of the example's own handlers (a tool that throws by design); anything else on stderr is a finding. */
const HANDLER_OUTPUT = /fixtures[\\/]everything[\\/]/;

/** Stderr text that is not explained by an example handler: one report per `[janus-mcp]` block. */
export function unexplainedStderr(text: string): string[] {
  return text
    .split(/(?=\[janus-mcp\])/)
    .map((block) => block.trim())
    .filter((block) => block !== '' && !HANDLER_OUTPUT.test(block));
}

interface Waiter {
  check: () => boolean;
  resolve: () => void;
}

export class StdioFuzzChannel {
  readonly ctx: Context;
  readonly ids = new IdAllocator();
  /** Frames written so far. */
  frames = 0;
  readonly #child: ChildProcessWithoutNullStreams;
  #buffer = '';
  #stderr = '';
  #stderrReported = 0;
  #exit: string | undefined;
  #judge: StreamJudge | undefined;
  /** Messages that answered nothing of the run in progress. */
  #orphans: string[] = [];
  /** Optional answers (cancelled requests) that may still come after their run. */
  readonly #late = new Set<Id>();
  readonly #good = new Map<Id, (m: Msg) => void>();
  #goodCount = 0;
  #waiter: Waiter | undefined;
  /** Listen streams acknowledged in the last run, cancelled at the start of the next. */
  #listening: Id[] = [];
  #closing: Promise<string[]> | undefined;
  /** How long a run waits for its answers before it counts the missing ones as hangs. */
  readonly answerBoundMs: number;

  private constructor(session: LegacyRevision | undefined, answerBoundMs: number) {
    this.ctx = { transport: 'stdio', session };
    this.answerBoundMs = answerBoundMs;
    this.#child = spawn(process.execPath, [EXAMPLE_MAIN, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.#child.stdout.setEncoding('utf8');
    this.#child.stdout.on('data', (chunk: string) => this.#data(chunk));
    this.#child.stderr.setEncoding('utf8');
    this.#child.stderr.on('data', (chunk: string) => (this.#stderr += chunk));
    this.#child.stdin.on('error', () => {}); // a dead child is reported by run(), not by an EPIPE crash
    this.#child.once('exit', (code, signal) => {
      this.#exit = `the server process exited (code ${code}, signal ${signal}); stderr: ${this.#stderr.slice(-2000)}`;
      this.#wake();
    });
  }

  /** A channel whose session is initialized at `session` (with no client capabilities), or left uninitialized. */
  static async open(session: LegacyRevision | undefined, answerBoundMs = ANSWER_BOUND_MS): Promise<StdioFuzzChannel> {
    const channel = new StdioFuzzChannel(session, answerBoundMs);
    if (session !== undefined) {
      const init = await channel.#request({
        jsonrpc: '2.0',
        id: `${GOOD}init`,
        method: 'initialize',
        params: { protocolVersion: session, capabilities: {}, clientInfo: CLIENT },
      });
      if (init.result?.protocolVersion !== session) throw new Error(`initialize failed: ${truncateJson(init)}`);
      channel.#write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    }
    const problems = await channel.#goodRequests();
    if (problems.length > 0) throw new Error(`the example server does not answer good requests: ${problems.join('; ')}`);
    channel.#stderrReported = channel.#stderr.length; // start-up output is not the fuzzer's business
    return channel;
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Sends one run and returns its problems (empty when every property held). */
  async run(frames: readonly Frame[], chunking: Chunking): Promise<string[]> {
    if (this.#exit) return [this.#exit];
    for (const id of this.#listening)
      this.#write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } })}\n`);
    this.#listening = [];
    const sent = plan(frames, this.ctx, this.ids);
    this.frames += sent.length;
    const judge = new StreamJudge(sent, this.ctx);
    this.#judge = judge;
    this.#orphans = [];
    this.#writeChunked(sent.map((s) => `${s.text}\n`).join(''), chunking);
    const answered = await this.#until(() => judge.complete, this.answerBoundMs);
    const problems = [...judge.problems];
    if (!answered) for (const s of judge.missing()) problems.push(`${describe(s)}: no answer within ${this.answerBoundMs} ms (a hang)`);
    problems.push(...(await this.#goodRequests()));
    for (const s of sent) collectIds(s, this.#late);
    this.#listening = judge.acknowledged;
    this.#judge = undefined;
    problems.push(...this.#orphans);
    if (this.#exit) problems.push(this.#exit);
    const noise = unexplainedStderr(this.#stderr.slice(this.#stderrReported));
    this.#stderrReported = this.#stderr.length;
    for (const n of noise) problems.push(`the server printed on stderr for a client's mistake: ${n.slice(0, 600)}`);
    return problems;
  }

  /** Ends stdin and waits for the process to exit; its problems (a non-zero exit, a process that stays). Once. */
  close(): Promise<string[]> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<string[]> {
    if (this.#exit === undefined) {
      this.#child.stdin.end();
      const exited = await this.#until(() => this.#exit !== undefined, 10_000);
      if (!exited && this.#child.pid !== undefined) {
        process.kill(this.#child.pid, 'SIGKILL');
        return ['the server did not exit within 10 s after its stdin closed'];
      }
    }
    const problems: string[] = [];
    if (this.#child.exitCode !== 0) problems.push(this.#exit ?? 'exit unknown');
    return problems;
  }

  /** A modern and (when initialized) a legacy tools/call of test_simple_text: both must come back exactly. */
  async #goodRequests(): Promise<string[]> {
    const problems: string[] = [];
    const calls: Array<[string, Msg]> = [
      [MODERN, { name: 'test_simple_text', arguments: {}, _meta: modernMeta() }],
      ...(this.ctx.session ? [[this.ctx.session, { name: 'test_simple_text', arguments: {} }] as [string, Msg]] : []),
    ];
    const answers = await Promise.all(
      calls.map(([, params]) => this.#request({ jsonrpc: '2.0', id: `${GOOD}${this.#goodCount++}`, method: 'tools/call', params })),
    );
    answers.forEach((answer, i) => {
      const revision = calls[i]![0];
      const text = answer.result?.content?.[0]?.text;
      if (text !== TEXT || answer.result?.isError)
        problems.push(`a good ${revision} tools/call was answered wrongly: ${truncateJson(answer)}`);
      const schema = schemaProblems(revision, answer, 'tools/call');
      if (schema.length) problems.push(`a good ${revision} tools/call answer breaks the schema: ${schema.join('; ')}`);
    });
    return problems;
  }

  #request(message: Msg): Promise<Msg> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#good.delete(message.id);
        resolve({ error: { code: 0, message: `no answer within ${this.answerBoundMs} ms` } });
      }, this.answerBoundMs);
      this.#good.set(message.id, (m) => {
        clearTimeout(timer);
        resolve(m);
      });
      if (this.#exit) resolve({ error: { code: 0, message: this.#exit } });
      this.#write(`${JSON.stringify(message)}\n`);
    });
  }

  #write(text: string): void {
    if (this.#exit === undefined) this.#child.stdin.write(text);
  }

  #writeChunked(text: string, chunking: Chunking): void {
    if (chunking.kind === 'burst') {
      this.#write(text);
      return;
    }
    if (chunking.kind === 'per-line') {
      for (const line of text.split(/(?<=\n)/)) this.#write(line);
      return;
    }
    const bytes = Buffer.from(text, 'utf8');
    const cuts = [...new Set(chunking.cuts.map((c) => c % bytes.length))].sort((a, b) => a - b);
    let from = 0;
    for (const cut of [...cuts, bytes.length]) {
      if (cut > from && this.#exit === undefined) this.#child.stdin.write(bytes.subarray(from, cut));
      from = Math.max(from, cut);
    }
  }

  #data(chunk: string): void {
    this.#buffer += chunk;
    let nl = this.#buffer.indexOf('\n');
    while (nl >= 0) {
      const line = this.#buffer.slice(0, nl);
      this.#buffer = this.#buffer.slice(nl + 1);
      this.#line(line);
      nl = this.#buffer.indexOf('\n');
    }
    this.#wake();
  }

  #line(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.#orphans.push(`nothing but protocol on stdout, but the server wrote: ${JSON.stringify(line.slice(0, 300))}`);
      return;
    }
    const id = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Msg).id : undefined;
    const good = id === undefined ? undefined : this.#good.get(id);
    if (good) {
      this.#good.delete(id);
      good(value as Msg);
      return;
    }
    if (this.#judge?.receive(value)) return;
    if (id !== undefined && this.#late.delete(id)) return; // the answer of a request cancelled too late
    this.#orphans.push(`a message that answers nothing sent in this run: ${truncateJson(value)}`);
  }

  #wake(): void {
    const w = this.#waiter;
    if (w?.check()) {
      this.#waiter = undefined;
      w.resolve();
    }
  }

  /** Resolves true when `check` holds (re-checked on every message), false after `ms`. */
  #until(check: () => boolean, ms: number): Promise<boolean> {
    if (check()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiter = undefined;
        resolve(false);
      }, ms);
      this.#waiter = {
        check: () => check() || this.#exit !== undefined,
        resolve: () => {
          clearTimeout(timer);
          resolve(check());
        },
      };
    });
  }
}

/** Ids of a frame's optional answers, which may still arrive after the run. */
function collectIds(sent: { expect: Expectation }, into: Set<Id>): void {
  const visit = (e: Expectation): void => {
    if (e.kind === 'batch') e.items.forEach(visit);
    else if ((e.kind === 'response' || e.kind === 'listen') && e.optional) into.add(e.id);
  };
  visit(sent.expect);
}
