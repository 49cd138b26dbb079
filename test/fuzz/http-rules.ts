/**
 * What one POST is owed over Streamable HTTP beyond model.ts, and whether its status fits
 * (streamable-http.mdx and the legacy transports.mdx; docs/http.md §HTTP statuses):
 * - a legacy message without a session gets 400 (-32600) before any dispatch;
 * - a 2026-07-28 error's status follows its code (-32601 → 404; -32600, -32602, -32700, -32020,
 *   -32021, -32022 → 400), legacy errors 200; notifications and responses 202 with no body;
 * - a header the harness could not mirror exactly makes -32020 a right answer;
 * - subscriptions/listen from a client that accepts only JSON gets 406 (or -32020 when a header
 *   could not be mirrored: headers are checked first).
 */
import type { Msg } from '../support/common.js';
import { type AcceptChoice, payloadEra } from './http-headers.js';
import type { Reply } from './http-server.js';
import type { Sent } from './judge.js';
import { type Context, type Expectation, HEADER_MISMATCH, INVALID_REQUEST } from './model.js';

const isObject = (v: unknown): v is Msg => typeof v === 'object' && v !== null && !Array.isArray(v);

/** 2026-07-28 status of an error answer (streamable-http.mdx; docs/http.md §HTTP statuses). */
function modernStatus(code: number): number {
  if (code === -32601) return 404;
  return [-32600, -32602, -32700, -32020, -32021, -32022].includes(code) ? 400 : 200;
}

export function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A 2026-07-28 subscriptions/listen POSTed by a client that accepts only JSON. */
function listenWithoutSse(value: unknown, accept: AcceptChoice): boolean {
  return accept === 'json' && isObject(value) && value.method === 'subscriptions/listen' && payloadEra(value) === 'modern';
}

/** What one POST is owed: model.ts, plus the transport's own refusals. */
export function httpExpectation(sent: Sent, ctx: Context, unmirrored: boolean, accept: AcceptChoice): Expectation {
  const value = parse(sent.text);
  if (value === undefined) return sent.expect;
  const era = payloadEra(value);
  // subscriptions/listen is answered with an event stream only (subscriptions.mdx): a client
  // that accepts only JSON is refused (406, streamable-http.mdx §Sending Messages item 2), before
  // or after its params are looked at.
  // Headers are checked first, so with a header the harness could not mirror, -32020 is right too.
  if (listenWithoutSse(value, accept)) {
    const also = unmirrored ? [INVALID_REQUEST, HEADER_MISMATCH] : [INVALID_REQUEST];
    if (sent.expect.kind === 'listen') return { kind: 'refusal', id: sent.expect.id, codes: also };
    if (sent.expect.kind === 'response') return { ...sent.expect, codes: [...sent.expect.codes, ...also] };
  }
  // A legacy message needs its session (transports §Session Management): without one, 400 before any dispatch.
  if (era === 'legacy' && ctx.session === undefined) {
    const id = isObject(value) && (typeof value.id === 'string' || Number.isInteger(value.id)) ? (value.id as string | number) : null;
    return { kind: 'refusal', id, codes: [INVALID_REQUEST], ...(sent.expect.deep ? { deep: true } : {}) };
  }
  if (era === 'modern' && unmirrored && (sent.expect.kind === 'response' || sent.expect.kind === 'listen')) {
    const e = sent.expect;
    const codes = e.kind === 'response' ? [...e.codes, HEADER_MISMATCH] : [HEADER_MISMATCH];
    return {
      kind: 'response',
      id: e.id,
      method: e.kind === 'response' ? e.method : 'subscriptions/listen',
      era: 'modern',
      result: e.kind === 'response' ? e.result : false,
      codes,
      ...(e.optional ? { optional: true } : {}),
      ...(e.deep ? { deep: true } : {}),
    };
  }
  return sent.expect;
}

/** Whether the status fits what came back (docs/http.md §HTTP statuses). */
export function statusProblem(reply: Reply, expect: Expectation, sent: Sent, ctx: Context, accept: AcceptChoice): string | undefined {
  const status = reply.status;
  const value = parse(sent.text);
  const refusedWith = (code: number) => reply.messages.some((m) => isObject(m) && m.error?.code === code);
  // 406 for the media type, or 400 for a header mismatch found first (its code is judged against the expectation).
  if (
    listenWithoutSse(value, accept) &&
    ((status === 406 && refusedWith(INVALID_REQUEST)) || (status === 400 && refusedWith(HEADER_MISMATCH)))
  )
    return undefined;
  if (accept === 'json' && sent.expect.kind === 'listen')
    return `HTTP ${status} for subscriptions/listen that accepts only JSON (406 expected)`;
  if (reply.messages.length === 0 && reply.other === undefined) {
    // Nothing but a status: notifications and responses (202), or a request cancelled in the same run.
    if (status === 202)
      return expect.kind === 'none' || expect.optional ? undefined : 'HTTP 202 with no body for a message that is owed an answer';
    if (status === 200 && (expect.optional || expect.kind === 'listen')) return undefined;
    return `HTTP ${status} with no body`;
  }
  if (expect.kind === 'none') return `HTTP ${status} with a body, for a message that gets no answer (202 expected)`;
  const answer = reply.messages.find((m) => isObject(m) && !('method' in m));
  if (Array.isArray(reply.messages[0])) return status === 200 ? undefined : `HTTP ${status} for a batch answer (200 expected)`;
  if (!isObject(answer)) return status === 200 ? undefined : `HTTP ${status} for an event stream`;
  if (reply.contentType.startsWith('text/event-stream')) return status === 200 ? undefined : `HTTP ${status} for an event stream`;
  if (!isObject(answer.error)) return status === 200 ? undefined : `HTTP ${status} for a result (200 expected)`;
  const code = answer.error.code as number;
  const modern = value !== undefined && payloadEra(value) === 'modern';
  const allowed = modern ? [modernStatus(code)] : code === INVALID_REQUEST || code === -32700 ? [200, 400] : [200];
  // A refusal for depth or of an unparsable body may come before the era is known.
  if ((expect.deep || value === undefined) && [-32600, -32700].includes(code)) allowed.push(400, 413);
  if (ctx.session === undefined && !modern) allowed.push(400);
  return allowed.includes(status) ? undefined : `HTTP ${status} for error ${code} (${allowed.join(' or ')} expected)`;
}
