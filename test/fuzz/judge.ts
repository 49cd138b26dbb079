/**
 * Judges what a server sent against what model.ts says it must send: every answer matched to
 * the frame it answers, with the right id, an allowed result or error code, and valid against
 * the official schema of its revision (test/support/wire-schema.ts); nothing for
 * notifications; no server-to-client requests (the fuzz client declares no capability that
 * invites them). Problems are sentences naming the frame, for the failure report.
 */
import { META_SUB, MODERN, type Id, type Msg } from '../support/common.js';
import { truncateJson, wireValidator } from '../support/wire-schema.js';
import { type Context, type Expectation, INTERNAL_ERROR, INVALID_REQUEST, PARSE_ERROR } from './model.js';
import { abbreviate } from './wire-text.js';

/** One frame of a run, rendered, with what the server owes it. */
export interface Sent {
  readonly family: string;
  readonly text: string;
  readonly expect: Expectation;
}

/** Codes a server may use to refuse a message nested deeper than it accepts. */
const DEPTH_REFUSALS = [INVALID_REQUEST, PARSE_ERROR];

const isObject = (v: unknown): v is Msg => typeof v === 'object' && v !== null && !Array.isArray(v);
const isResponse = (m: Msg): boolean => !('method' in m) && ('result' in m || 'error' in m);

/** A frame as a failure report names it: its family and its (abbreviated) text. */
export function describe(sent: Sent): string {
  return `[${sent.family}] ${abbreviate(sent.text, 300)}`;
}

function codeList(codes: readonly number[]): string {
  return codes.length === 0 ? 'no error at all' : codes.join(' or ');
}

/** The revisions a response may be checked against (valid in one is enough). */
function revisionsOf(expect: Expectation, ctx: Context, m: Msg): string[] {
  const session = ctx.session ?? '2025-11-25';
  if (expect.kind === 'response') return expect.era === 'modern' ? [MODERN] : expect.era === 'either' ? [session, MODERN] : [session];
  // An error whose id could not be read has no valid shape before 2025-11-25 (id required, never null).
  if (m.id === undefined || m.id === null) return [session < '2025-11-25' ? '2025-11-25' : session];
  return [session];
}

/** Schema problems of one server message (a response to `method` when given). */
export function schemaProblems(revision: string, m: unknown, method?: string): string[] {
  return wireValidator().checkServerMessage(revision, m, { requestMethod: method });
}

/**
 * Whether `m` (a response) answers `expect`; undefined when it does, else why not. `deep`
 * expectations also accept a refusal for depth.
 */
export function judgeAnswer(m: Msg, expect: Expectation, ctx: Context): string | undefined {
  const deepRefusal = expect.deep === true && isObject(m.error) && DEPTH_REFUSALS.includes(m.error.code);
  if (expect.kind === 'response') {
    if (m.id !== expect.id && !(deepRefusal && (m.id === undefined || m.id === null))) {
      return `answered with id ${JSON.stringify(m.id)} instead of ${JSON.stringify(expect.id)}`;
    }
    if ('result' in m && !expect.result) return `got a result where the spec wants an error ${codeList(expect.codes)}`;
  } else if (expect.kind === 'refusal') {
    if (m.id !== undefined && m.id !== null && m.id !== expect.id)
      return `refused with id ${JSON.stringify(m.id)}, not the request's (${JSON.stringify(expect.id)}) or none`;
    if ('result' in m) return `got a result where the spec wants an error ${codeList(expect.codes)}`;
  } else if (expect.kind === 'listen') {
    if (m.id !== expect.id) return `answered with id ${JSON.stringify(m.id)} instead of ${JSON.stringify(expect.id)}`;
    if ('result' in m) return 'subscriptions/listen answered with a result before it was cancelled';
  }
  if (isObject(m.error)) {
    const code = m.error.code;
    const allowed = expect.kind === 'response' || expect.kind === 'refusal' ? expect.codes : [];
    // A request cancelled in the same run may still be told so, which its sender ignores (cancellation.mdx).
    const cancelled = expect.optional === true && code === INVALID_REQUEST;
    if (!allowed.includes(code) && !deepRefusal && !cancelled) {
      const internal = code === INTERNAL_ERROR ? ' (Internal error for a client mistake)' : '';
      return `error ${code}${internal} "${String(m.error.message).slice(0, 200)}" where the spec wants ${codeList(allowed)}${expect.deep ? ` (or ${DEPTH_REFUSALS.join('/')} for depth)` : ''}`;
    }
  }
  const method = expect.kind === 'response' ? expect.method : undefined;
  const checks = revisionsOf(expect, ctx, m).map((r) => schemaProblems(r, m, method));
  if (checks.some((p) => p.length === 0)) return undefined;
  return `schema: ${checks.flat().join('; ')} in ${truncateJson(m)}`;
}

/**
 * Which open expectation a response answers: by id; without an id, the first refusal in frame
 * order (servers refuse in the order they read), those whose id could not be read first, else
 * the first message nested deep enough to be refused for its depth.
 */
function findAnswered<K>(m: Msg, open: ReadonlyArray<readonly [K, Expectation]>): K | undefined {
  const candidates = open.filter(([, e]) => e.kind !== 'batch' && e.kind !== 'none');
  if (m.id !== undefined && m.id !== null) return candidates.find(([, e]) => waitsForId(e) === m.id)?.[0];
  const refusal = (test: (e: Expectation & { kind: 'refusal' }) => boolean) => candidates.find(([, e]) => e.kind === 'refusal' && test(e));
  return (refusal((e) => e.id === null && !e.optional) ??
    refusal((e) => !e.optional) ??
    refusal(() => true) ??
    candidates.find(([, e]) => e.deep === true))?.[0];
}

/** The id an expectation waits for, if any. */
function waitsForId(expect: Expectation): Id | undefined {
  return expect.kind === 'response' || expect.kind === 'listen'
    ? expect.id
    : expect.kind === 'refusal'
      ? (expect.id ?? undefined)
      : undefined;
}

/** Whether a server notification is valid in the session's revision or in 2026-07-28 (one stdio channel carries both eras). */
export function notificationProblem(m: Msg, ctx: Context): string | undefined {
  const revisions = ctx.session === undefined ? [MODERN, '2025-11-25'] : [ctx.session, MODERN];
  const problems = revisions.map((r) => schemaProblems(r, m));
  if (problems.some((p) => p.length === 0)) return undefined;
  return `server notification invalid in ${revisions.join(' and ')}: ${problems.flat().join('; ')} in ${truncateJson(m)}`;
}

/**
 * Matches a stream of server messages (stdio) to the frames of a run. Answers are taken by id,
 * messages without id in frame order; arrays answer batches.
 */
export class StreamJudge {
  readonly problems: string[] = [];
  /** Frames still owed an answer (index into `sent`). */
  readonly #open = new Set<number>();
  /** Listen requests acknowledged, to be cancelled by the harness. */
  readonly acknowledged: Id[] = [];

  /** Ids of the subscriptions/listen requests inside batch frames. */
  readonly #listensInBatches = new Set<unknown>();
  /** With `batchesMayStream`: the items of each batch frame still owed an answer. */
  readonly #items = new Map<number, Array<readonly [number, Expectation]>>();

  /**
   * `batchesMayStream`: a batch may be answered one response at a time (an event stream:
   * 2025-03-26 transports §Sending Messages, "these responses MAY be batched"), not only as one array.
   */
  constructor(
    readonly sent: readonly Sent[],
    readonly ctx: Context,
    readonly batchesMayStream = false,
  ) {
    sent.forEach((s, i) => {
      if (s.expect.kind === 'batch') {
        for (const e of s.expect.items) if (e.kind === 'response' && e.method === 'subscriptions/listen') this.#listensInBatches.add(e.id);
      }
      if (s.expect.kind === 'none') return;
      this.#open.add(i);
      if (batchesMayStream && s.expect.kind === 'batch') {
        this.#items.set(
          i,
          s.expect.items.flatMap((e, k) => (e.kind === 'none' ? [] : [[k, e] as const])),
        );
      }
    });
  }

  /** Frames whose answer is still missing and not optional. */
  missing(): Sent[] {
    return [...this.#open]
      .filter((i) => {
        const items = this.#items.get(i);
        if (items !== undefined) return items.some(([, e]) => !e.optional);
        return this.sent[i]!.expect.optional !== true;
      })
      .map((i) => this.sent[i]!);
  }

  /** Whether every owed answer has come. */
  get complete(): boolean {
    return this.missing().length === 0;
  }

  /** Takes one server message; false when it answers no frame of this run (the harness decides what that means). */
  receive(value: unknown): boolean {
    if (Array.isArray(value)) return this.#batch(value);
    if (!isObject(value)) {
      this.problems.push(`the server wrote a JSON value that is no message: ${truncateJson(value)}`);
      return true;
    }
    if ('method' in value) {
      if ('id' in value) this.problems.push(`the server sent a request although the client declared no capability: ${truncateJson(value)}`);
      else this.#notification(value);
      return true;
    }
    if (!isResponse(value)) {
      this.problems.push(`the server wrote an object that is not a JSON-RPC message: ${truncateJson(value)}`);
      return true;
    }
    const index = this.#find(value);
    if (index === undefined) return this.#batchItem(value);
    this.#open.delete(index);
    const sent = this.sent[index]!;
    const problem = judgeAnswer(value, sent.expect, this.ctx);
    if (problem) this.problems.push(`${describe(sent)}: ${problem}`);
    return true;
  }

  /** One response of a batch answered as separate messages (`batchesMayStream`). */
  #batchItem(m: Msg): boolean {
    for (const [i, items] of this.#items) {
      if (!this.#open.has(i)) continue;
      const k = findAnswered(m, items);
      if (k === undefined) continue;
      items.splice(
        items.findIndex(([j]) => j === k),
        1,
      );
      const e = (this.sent[i]!.expect as Expectation & { kind: 'batch' }).items[k]!;
      const problem = judgeAnswer(m, e, this.ctx);
      if (problem) this.problems.push(`${describe(this.sent[i]!)}: item ${k}: ${problem}`);
      if (!items.some(([, item]) => !item.optional)) this.#open.delete(i);
      return true;
    }
    return false;
  }

  #find(m: Msg): number | undefined {
    return findAnswered(
      m,
      [...this.#open].map((i) => [i, this.sent[i]!.expect] as const),
    );
  }

  #notification(m: Msg): void {
    const problem = notificationProblem(m, this.ctx);
    if (problem) this.problems.push(problem);
    if (m.method !== 'notifications/subscriptions/acknowledged') return;
    const id = m.params?._meta?.[META_SUB];
    for (const i of this.#open) {
      const e = this.sent[i]!.expect;
      if (e.kind === 'listen' && e.id === id) {
        this.#open.delete(i);
        this.acknowledged.push(e.id);
        return;
      }
    }
    if (this.#listensInBatches.has(id)) {
      this.acknowledged.push(id); // a listen in a batch whose stream runs on beside it
      return;
    }
    this.problems.push(`an acknowledgement for no listen request of this run: ${truncateJson(m)}`);
  }

  /**
   * A batch answer: the open batch frame it fits best (answers matched by id, errors without id
   * counted for refusals, owed ones first, less the difference between the answers owed and given).
   */
  #batch(answers: unknown[]): boolean {
    let best: { i: number; items: readonly Expectation[]; score: number } | undefined;
    for (const i of this.#open) {
      const e = this.sent[i]!.expect;
      if (e.kind !== 'batch') continue;
      const open = e.items.map((item, k) => [k, item] as const);
      let matched = 0;
      for (const a of answers) {
        const k = isObject(a) ? findAnswered(a, open) : undefined;
        if (k === undefined) continue;
        matched += fit(a as Msg, e.items[k]!);
        open.splice(
          open.findIndex(([j]) => j === k),
          1,
        );
      }
      const possible = e.items.filter((item) => item.kind !== 'none').length;
      const required = e.items.filter((item) => item.kind !== 'none' && !item.optional).length;
      const n = answers.length;
      const score = matched - 5 * (n < required ? required - n : n > possible ? n - possible : 0) + (n === possible ? 0.5 : 0);
      if (best === undefined || score > best.score) best = { i, items: e.items, score };
    }
    if (best === undefined) return false;
    this.#open.delete(best.i);
    for (const p of judgeBatch(answers, best.items, this.ctx)) this.problems.push(`${describe(this.sent[best.i]!)}: ${p}`);
    return true;
  }
}

/**
 * How surely an answer belongs to an expectation, to tell batches apart: a matching id is sure,
 * an error without id fits best an item whose id could not be read either; owed answers more
 * than optional ones.
 */
function fit(answer: Msg, e: Expectation): number {
  const anonymous = answer.id === undefined || answer.id === null;
  const how = !anonymous ? 4 : e.kind === 'refusal' && e.id === null ? 3 : 1;
  return how + (e.optional ? 0 : 1);
}

/** One batch's answer array against its items' expectations (JSON-RPC §6: every request answered, in any order). */
export function judgeBatch(answers: unknown[], items: readonly Expectation[], ctx: Context): string[] {
  const problems: string[] = [];
  const open = items.map((e, i) => ({ e, i })).filter(({ e }) => e.kind !== 'none');
  if (answers.length === 0) problems.push('an empty array answered a batch (JSON-RPC §6: send nothing instead)');
  for (const a of answers) {
    if (!isObject(a) || !isResponse(a)) {
      problems.push(`a batch answer holds something that is not a response: ${truncateJson(a)}`);
      continue;
    }
    const i = findAnswered(
      a,
      open.map(({ e, i }) => [i, e] as const),
    );
    if (i === undefined) {
      problems.push(`a batch answer answers no item: ${truncateJson(a)}`);
      continue;
    }
    const at = open.findIndex((o) => o.i === i);
    const [{ e }] = open.splice(at, 1) as [{ e: Expectation; i: number }];
    const problem = judgeAnswer(a, e, ctx);
    if (problem) problems.push(`item ${i}: ${problem}`);
  }
  for (const { e, i } of open) if (!e.optional) problems.push(`item ${i} got no answer in the batch`);
  // Each answer was checked above; the array itself once more, without the errors whose id could
  // not be read (no revision with batches can spell those: judgeAnswer checks them as 2025-11-25 does).
  const withIds = answers.filter((a) => !isObject(a) || (a.id !== undefined && a.id !== null));
  const schema = withIds.length > 0 ? schemaProblems(ctx.session ?? '2025-03-26', withIds) : [];
  if (schema.length) problems.push(`schema of the batch answer: ${schema.join('; ')}`);
  return problems;
}
