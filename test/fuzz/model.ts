/**
 * What the spec requires of a server for one inbound message: the reference the fuzzers judge
 * the real server by. It is written from the spec, not from the implementation:
 *
 * - JSON-RPC 2.0 §4-§6: text that is not JSON gets -32700; JSON that is not a valid Request gets
 *   -32600 with the id when it could be read (else null, spelt by omission from 2025-11-25); a
 *   notification gets nothing, in a batch too; an empty batch is one -32600. MCP narrows ids to
 *   strings and integers, never null (basic/index.mdx §Requests), and params to an object.
 * - Batches exist only in 2025-03-26 (removed in 2025-06-18), and `initialize` is never batched.
 * - Eras (2026-07-28 basic/versioning.mdx §Backward Compatibility): a request whose `_meta`
 *   names a protocol version, or whose method only 2026-07-28 has, is a 2026-07-28 request; it
 *   must carry the version (a string) and client capabilities (an object), else -32602; an
 *   unknown version is -32022 (2026-07-28 basic/index.mdx §Per-request protocol fields, §Error
 *   Codes). Everything else belongs to the channel's legacy session (lifecycle.mdx):
 *   `initialize` once, then the revision's methods; -32601 for a method the revision (its
 *   schema.json) does not define.
 * - Client mistakes are never -32603 (Internal error): a wrong name, URI, cursor or argument is
 *   -32602 (2026-07-28 server/resources.mdx §Error Handling; -32002 for an unknown resource in
 *   the handshake era); a tool that fails on its arguments answers a result with isError.
 *
 * Where the spec leaves the choice open (which of two problems to report first; whether a
 * message nested deeper than a server's limit is refused), every allowed answer is accepted.
 */
import type { Id, LegacyRevision } from '../support/common.js';
import { MODERN, META_CAPS, META_LOG, META_VERSION } from '../support/common.js';
import { wireValidator } from '../support/wire-schema.js';
import { depthOf } from './wire-text.js';

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
export const RESOURCE_NOT_FOUND = -32002;
export const HEADER_MISMATCH = -32020;
export const MISSING_CAPABILITY = -32021;
export const UNSUPPORTED_VERSION = -32022;

/**
 * Nesting a server may refuse (-32600 or -32700) whatever else the message is. No spec sets a
 * depth; 64 is below any limit a server would pick and far above what real messages use.
 */
export const DEPTH_ANY_SERVER_MAY_REFUSE = 64;

/** The channel a message arrives on. */
export interface Context {
  readonly transport: 'stdio' | 'http';
  /**
   * The channel's legacy session, once initialized: its negotiated revision. Undefined on a
   * stdio channel before `initialize`, and on HTTP for a POST without `Mcp-Session-Id`.
   */
  readonly session: LegacyRevision | undefined;
}

interface Common {
  /** The answer may be missing (a request cancelled in the same run). */
  optional?: boolean;
  /** The message is nested deeper than DEPTH_ANY_SERVER_MAY_REFUSE: a refusal (-32600/-32700) is allowed too. */
  deep?: boolean;
}

export type Expectation = Common &
  (
    | { kind: 'none' }
    /** A response with this id: a result (when `result`) or an error with one of `codes`. */
    | {
        kind: 'response';
        id: Id;
        method: string;
        /** Which revision's schema the answer follows: the request's era, or either (a 2026-07-28 request in a legacy batch). */
        era: 'modern' | 'legacy' | 'either';
        result: boolean;
        codes: readonly number[];
      }
    /** An error with one of `codes`, carrying `id` when the id could be read, else none. */
    | { kind: 'refusal'; id: Id | null; codes: readonly number[] }
    /** A valid subscriptions/listen: its acknowledgement first (subscriptions.mdx), then the stream stays open. */
    | { kind: 'listen'; id: Id }
    /** A 2025-03-26 batch: one array holding the answer of every item that gets one (JSON-RPC §6). */
    | { kind: 'batch'; items: readonly Expectation[] }
  );

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const has = (o: object, key: string): boolean => Object.hasOwn(o, key);
const isId = (v: unknown): v is Id => typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));

const LOG_LEVELS = new Set(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);

interface MethodTables {
  readonly modern: ReadonlySet<string>;
  readonly modernOnly: ReadonlySet<string>;
  readonly legacy: (v: LegacyRevision) => ReadonlySet<string>;
}

let tables: MethodTables | undefined;

/** Client request methods per revision, from the official schema.json files (the 2025-11-25 tasks methods are experimental: not served). */
export function methodTables(): MethodTables {
  if (tables) return tables;
  const v = wireValidator();
  const requests = (rev: string) => new Set([...v.methods(rev).clientRequests.keys()].filter((m) => !m.startsWith('tasks/')));
  const modern = requests(MODERN);
  const legacyRevisions = v.revisions.filter((r) => r !== MODERN);
  const anyLegacy = new Set(legacyRevisions.flatMap((r) => [...requests(r)]));
  const perRevision = new Map(legacyRevisions.map((r) => [r, requests(r)]));
  tables = {
    modern,
    modernOnly: new Set([...modern].filter((m) => !anyLegacy.has(m))),
    legacy: (rev) => perRevision.get(rev)!,
  };
  return tables;
}

/** The mistakes a client can make in each request of a method, beyond the envelope. */
const METHOD_ERRORS: Readonly<Record<string, readonly number[]>> = {
  'tools/call': [INVALID_PARAMS],
  'prompts/get': [INVALID_PARAMS],
  'resources/read': [INVALID_PARAMS],
  'completion/complete': [INVALID_PARAMS],
  'resources/subscribe': [INVALID_PARAMS],
  'resources/unsubscribe': [INVALID_PARAMS],
  'logging/setLevel': [INVALID_PARAMS],
};
/** The example's prompts whose handler asks the client (test/fixtures/everything/input-required.ts). */
const PROMPTS_THAT_ASK = new Set(['test_input_required_result_prompt']);
/** Methods that ask the client in 2026-07-28 (mrtr.mdx) and so may need a capability the request did not declare. */
const MAY_NEED_CAPABILITY = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** Does this request claim the 2026-07-28 wire? (versioning.mdx §Backward Compatibility: `_meta` names a version, or the method is modern-only.) */
export function claimsModern(method: string, params: unknown): boolean {
  if (isObject(params) && isObject(params._meta) && has(params._meta, META_VERSION)) return true;
  return methodTables().modernOnly.has(method);
}

/** What one frame (its text as sent) is owed on `ctx`. */
export function expectationFor(text: string, ctx: Context): Expectation {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    if (ctx.transport === 'stdio' && text.trim() === '') return { kind: 'none' }; // a blank line is no message
    return { kind: 'refusal', id: null, codes: [PARSE_ERROR] };
  }
  const e = valueExpectation(parsed, ctx);
  return depthOf(parsed) > DEPTH_ANY_SERVER_MAY_REFUSE ? { ...e, deep: true } : e;
}

function valueExpectation(value: unknown, ctx: Context): Expectation {
  if (Array.isArray(value)) return batchExpectation(value, ctx);
  return messageExpectation(value, ctx);
}

function batchExpectation(items: unknown[], ctx: Context): Expectation {
  const refused: Expectation = { kind: 'refusal', id: null, codes: [INVALID_REQUEST] };
  const batches = ctx.session !== undefined && wireValidator().methods(ctx.session).batching;
  if (!batches || items.length === 0) return refused;
  if (items.some((m) => isObject(m) && m.method === 'initialize')) return refused;
  // A 2026-07-28 request inside a 2025-03-26 batch mixes eras: a server may serve it statelessly
  // or as part of the batch's legacy session. Either answer is fine.
  const expectations = items.map((m): Expectation => {
    const e = messageExpectation(m, ctx);
    // subscriptions/listen answers only when its stream ends: in a batch it is refused, or its
    // stream runs on beside the batch (acknowledged by notification); it must not hold the batch.
    if (e.kind === 'listen')
      return {
        kind: 'response',
        id: e.id,
        method: 'subscriptions/listen',
        era: 'either',
        result: false,
        codes: [INVALID_REQUEST, METHOD_NOT_FOUND],
        optional: true,
      };
    if (e.kind !== 'response' || e.era !== 'modern' || !isObject(m)) return e;
    const legacy = legacyExpectation(e.id, e.method, m.params, ctx);
    if (legacy.kind !== 'response') return e;
    return { ...e, era: 'either', result: e.result || legacy.result, codes: [...new Set([...e.codes, ...legacy.codes, METHOD_NOT_FOUND])] };
  });
  // JSON-RPC §6: a batch of notifications (and responses) gets nothing back at all.
  const answered = expectations.filter((e) => e.kind !== 'none');
  if (answered.length === 0) return { kind: 'none' };
  return { kind: 'batch', items: expectations, ...(answered.every((e) => e.optional) ? { optional: true } : {}) };
}

function invalid(id: unknown, codes: readonly number[] = [INVALID_REQUEST]): Expectation {
  return { kind: 'refusal', id: isId(id) ? id : null, codes };
}

/** One JSON value that is not an array. */
export function messageExpectation(m: unknown, ctx: Context): Expectation {
  if (!isObject(m)) return invalid(null);
  if (m.jsonrpc !== '2.0') return invalid(m.id);
  if (has(m, 'method')) {
    if (typeof m.method !== 'string') return invalid(m.id);
    if (has(m, 'params') && !isObject(m.params)) return invalid(m.id, [INVALID_REQUEST, INVALID_PARAMS]);
    if (!has(m, 'id')) return { kind: 'none' };
    if (!isId(m.id)) return invalid(null);
    return requestExpectation(m.id, m.method, m.params, ctx);
  }
  if (has(m, 'result') || has(m, 'error')) {
    const resultOk = !has(m, 'result') || isObject(m.result);
    const error = m.error;
    const errorOk = !has(m, 'error') || (isObject(error) && typeof error.code === 'number' && typeof error.message === 'string');
    if (!resultOk || !errorOk) return invalid(m.id);
    // A response answering nothing we asked is dropped; one with both members is not a valid Response either.
    return has(m, 'result') && has(m, 'error') ? { ...invalid(m.id), optional: true } : { kind: 'none' };
  }
  return invalid(m.id);
}

function requestExpectation(id: Id, method: string, params: unknown, ctx: Context): Expectation {
  return claimsModern(method, params) ? modernExpectation(id, method, params) : legacyExpectation(id, method, params, ctx);
}

function modernExpectation(id: Id, method: string, params: unknown): Expectation {
  const answer = (result: boolean, codes: readonly number[]): Expectation => ({
    kind: 'response',
    id,
    method,
    era: 'modern',
    result,
    codes,
  });
  const meta = isObject(params) ? params._meta : undefined;
  if (!isObject(meta)) return answer(false, [INVALID_PARAMS]);
  const problems = new Set<number>();
  const version = meta[META_VERSION];
  if (typeof version !== 'string') problems.add(INVALID_PARAMS);
  else if (version !== MODERN) problems.add(UNSUPPORTED_VERSION);
  if (!isObject(meta[META_CAPS])) problems.add(INVALID_PARAMS);
  const level = meta[META_LOG];
  if (has(meta, META_LOG) && !(typeof level === 'string' && LOG_LEVELS.has(level))) problems.add(INVALID_PARAMS);
  if (problems.size > 0) return answer(false, [...problems]);
  if (!methodTables().modern.has(method)) return answer(false, [METHOD_NOT_FOUND]);
  if (method === 'subscriptions/listen') {
    return isObject(params) && isObject(params.notifications) ? { kind: 'listen', id } : answer(false, [INVALID_PARAMS]);
  }
  const codes = [INVALID_PARAMS, ...(MAY_NEED_CAPABILITY.has(method) ? [MISSING_CAPABILITY] : [])];
  return answer(true, codes);
}

function legacyExpectation(id: Id, method: string, params: unknown, ctx: Context): Expectation {
  const answer = (result: boolean, codes: readonly number[]): Expectation => ({
    kind: 'response',
    id,
    method,
    era: 'legacy',
    result,
    codes,
  });
  const v = ctx.session;
  if (method === 'initialize') {
    if (v !== undefined) return answer(false, [INVALID_REQUEST]); // lifecycle.mdx: one initialization per session
    const version = isObject(params) ? params.protocolVersion : undefined;
    return typeof version === 'string' ? answer(true, [INVALID_PARAMS]) : answer(false, [INVALID_PARAMS]);
  }
  if (v === undefined) {
    // Before initialize only ping is served (lifecycle.mdx §Initialization); on HTTP there is no session at all.
    if (method === 'ping' && ctx.transport === 'stdio') return answer(true, []);
    return answer(false, [INVALID_REQUEST]);
  }
  if (method === 'ping') return answer(true, []);
  if (!methodTables().legacy(v).has(method)) return answer(false, [METHOD_NOT_FOUND]);
  const codes = [...(METHOD_ERRORS[method] ?? [INVALID_PARAMS])];
  if (method === 'resources/read') codes.push(RESOURCE_NOT_FOUND);
  // A prompt whose handler asks the client (elicitation) fails on a session that cannot be asked:
  // the handshake era has no error for that (2026-07-28 has -32021), so the failure is the server's.
  if (method === 'prompts/get' && isObject(params) && typeof params.name === 'string' && PROMPTS_THAT_ASK.has(params.name)) {
    codes.push(INTERNAL_ERROR);
  }
  return answer(true, codes);
}
