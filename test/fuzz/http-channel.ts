/**
 * The example server over Streamable HTTP (http-server.ts), fuzzed with one POST per frame, all
 * of a run at once, each body written in one piece or in chunks cut at random bytes (chunked
 * transfer encoding, UTF-8 sequences cut too), with every kind of `Accept` header. A channel is either a legacy session (its frames carry `Mcp-Session-Id`) or no session.
 * The properties are those of stdio-channel.ts, plus the HTTP ones (streamable-http.mdx and the
 * legacy transports.mdx; docs/http.md §HTTP statuses):
 * - a request gets its answer as JSON or as an event stream that ends with it; notifications and
 *   responses get 202 and no body; a body that is not JSON gets 400 with -32700;
 * - a legacy message without a session gets 400 (-32600); a 2026-07-28 error's status follows its
 *   code (-32601 → 404; -32600, -32602, -32700, -32020, -32021, -32022 → 400); legacy errors 200;
 * - subscriptions/listen opens an event stream whose first message is the acknowledgement;
 *   closing it is the cancellation (the harness closes it).
 */
import { CLIENT, TEXT } from '../support/everything-fixture.js';
import { type LegacyRevision, MODERN, type Msg } from '../support/common.js';
import { modernMeta } from '../support/peer.js';
import { truncateJson } from '../support/wire-schema.js';
import type { Frame } from './arbitraries.js';
import { frameHeaders } from './http-headers.js';
import { httpExpectation, statusProblem } from './http-rules.js';
import type { Delivery, HttpFuzzServer, Reply } from './http-server.js';
import { describe, schemaProblems, type Sent, StreamJudge } from './judge.js';
import type { Context } from './model.js';
import { plan } from './plan.js';
import { ANSWER_BOUND_MS } from './runner.js';
import { IdAllocator } from './wire-text.js';

/** The example server's `maxBodyBytes` (serveHttp's default, 4 MiB). */
const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

export { HttpFuzzServer, type BodyWrites, type Delivery } from './http-server.js';

const isObject = (v: unknown): v is Msg => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A fuzz channel on one server: a legacy session at `session`, or none. */
export class HttpFuzzChannel {
  readonly ctx: Context;
  readonly ids = new IdAllocator();
  frames = 0;
  #goodCount = 0;
  /** Sessions the fuzz frames opened (`initialize` without a session), deleted after each run. */
  #opened: string[] = [];

  private constructor(
    readonly server: HttpFuzzServer,
    session: LegacyRevision | undefined,
    readonly sessionId: string | undefined,
    /** How long a POST may go unanswered before it counts as a hang. */
    readonly answerBoundMs: number,
  ) {
    this.ctx = { transport: 'http', session };
  }

  static async open(
    server: HttpFuzzServer,
    session: LegacyRevision | undefined,
    answerBoundMs = ANSWER_BOUND_MS,
  ): Promise<HttpFuzzChannel> {
    let sessionId: string | undefined;
    if (session !== undefined) {
      const init = JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: session, capabilities: {}, clientInfo: CLIENT },
      });
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const reply = await server.post(headers, init, { kind: 'whole' }, undefined);
      const answer = reply.messages[0];
      if (!isObject(answer) || answer.result?.protocolVersion !== session || reply.sessionId === undefined) {
        throw new Error(`initialize failed: ${truncateJson(reply)}`);
      }
      sessionId = reply.sessionId;
      const sessionHeaders = {
        ...headers,
        'mcp-session-id': sessionId,
        ...(session >= '2025-06-18' ? { 'mcp-protocol-version': session } : {}),
      };
      const ack = await server.post(sessionHeaders, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), {
        kind: 'whole',
      });
      if (ack.status !== 202) throw new Error(`notifications/initialized got ${ack.status}`);
    }
    const channel = new HttpFuzzChannel(server, session, sessionId, answerBoundMs);
    const problems = await channel.#goodRequests();
    if (problems.length > 0) throw new Error(`the example server does not answer good requests: ${problems.join('; ')}`);
    server.health(); // start-up output is not the fuzzer's business
    return channel;
  }

  async run(frames: readonly Frame[], delivery: Delivery): Promise<string[]> {
    const sent = plan(frames, this.ctx, this.ids);
    this.frames += sent.length;
    const results = await Promise.all(sent.map((s) => this.#one(s, delivery)));
    const problems = results.flat();
    problems.push(...(await this.#goodRequests()));
    await this.#closeOpened();
    problems.push(...this.server.health());
    return problems;
  }

  /** Deletes the sessions fuzz frames opened, so that a run never fills the session table. */
  async #closeOpened(): Promise<void> {
    const ids = this.#opened;
    this.#opened = [];
    await Promise.all(ids.map((sid) => this.server.deleteSession(sid)));
  }

  async #one(sent: Sent, { writes, accept }: Delivery): Promise<string[]> {
    const fh = frameHeaders(sent.text, this.ctx, this.sessionId, accept);
    const expect = httpExpectation(sent, this.ctx, fh.unmirrored, accept);
    const frames = [{ ...sent, expect }];
    // An event stream may carry a batch's answers one by one; a JSON body must be the array.
    const sseJudge = new StreamJudge(frames, this.ctx, true);
    const untilAcknowledged = (m: unknown) => {
      sseJudge.receive(m);
      return sseJudge.acknowledged.length > 0;
    };
    const reply = await this.server.post(fh.headers, sent.text, writes, untilAcknowledged, this.answerBoundMs);
    const what = describe(sent);
    if (reply.timedOut) return [`${what}: no HTTP answer within ${this.answerBoundMs} ms (a hang)`];
    // A body over the server's limit is refused unread: 413 and the connection closed (docs/http.md),
    // so a client still writing it may see the reset before the answer (RFC 9112 §9.6), as with
    // headers too large for the server.
    const oversize = Buffer.byteLength(sent.text) > DEFAULT_MAX_BODY_BYTES;
    if (reply.error) return fh.large || oversize ? [] : [`${what}: the request failed: ${reply.error}`];
    if (reply.status === 431 && fh.large) return [];
    const sse = reply.contentType.startsWith('text/event-stream');
    const judge = sse ? sseJudge : new StreamJudge(frames, this.ctx);
    if (!sse) for (const m of reply.messages) judge.receive(m);
    // 2025-11-25 SSE polling: a stream the server closed early (ctx.closeStream) resumes with Last-Event-ID.
    let cursor = sse ? reply.lastEventId : undefined;
    for (let resumes = 0; cursor !== undefined && resumes < 5 && !judge.complete && this.sessionId !== undefined; resumes++) {
      const headers: Record<string, string> = { accept: 'text/event-stream', 'mcp-session-id': this.sessionId, 'last-event-id': cursor };
      if (this.ctx.session !== undefined && this.ctx.session >= '2025-06-18') headers['mcp-protocol-version'] = this.ctx.session;
      const resumed = await this.server.post(headers, undefined, { kind: 'whole' }, untilAcknowledged, this.answerBoundMs);
      reply.messages.push(...resumed.messages);
      cursor = resumed.lastEventId !== cursor ? resumed.lastEventId : undefined;
    }
    const problems: string[] = [];
    if (reply.other !== undefined)
      problems.push(`${what}: a body that is not JSON-RPC (HTTP ${reply.status}): ${reply.other.slice(0, 300)}`);
    problems.push(...judge.problems.map((p) => (p.startsWith('[') ? p : `${what}: ${p}`)));
    if (judge.acknowledged.length === 0)
      for (const s of judge.missing()) problems.push(`${describe(s)}: no answer in the HTTP reply (status ${reply.status})`);
    const status = statusProblem(reply, expect, sent, this.ctx, accept);
    if (status) problems.push(`${what}: ${status}`);
    if (reply.sessionId !== undefined && reply.sessionId !== this.sessionId) this.#opened.push(reply.sessionId);
    return problems;
  }

  async #goodRequests(): Promise<string[]> {
    const problems: string[] = [];
    const id = `janus-fuzz-good-${this.#goodCount++}`;
    const modern = JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'test_simple_text', arguments: {}, _meta: modernMeta() },
    });
    const checks: Array<Promise<void>> = [
      this.server
        .post(
          {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': MODERN,
            'mcp-method': 'tools/call',
            'mcp-name': 'test_simple_text',
          },
          modern,
          { kind: 'whole' },
        )
        .then((reply) => goodAnswer(reply, MODERN, problems)),
    ];
    if (this.sessionId !== undefined && this.ctx.session !== undefined) {
      const legacy = JSON.stringify({
        jsonrpc: '2.0',
        id: `${id}-legacy`,
        method: 'tools/call',
        params: { name: 'test_simple_text', arguments: {} },
      });
      const fh = frameHeaders(legacy, this.ctx, this.sessionId);
      checks.push(this.server.post(fh.headers, legacy, { kind: 'whole' }).then((reply) => goodAnswer(reply, this.ctx.session!, problems)));
    }
    await Promise.all(checks);
    return problems;
  }
}

function goodAnswer(reply: Reply, revision: string, problems: string[]): void {
  const answer = reply.messages.find((m) => isObject(m) && 'id' in m);
  const text = isObject(answer) ? answer.result?.content?.[0]?.text : undefined;
  if (reply.status !== 200 || text !== TEXT)
    problems.push(`a good ${revision} tools/call was answered wrongly: HTTP ${reply.status} ${truncateJson(reply.messages)}`);
  else {
    const schema = schemaProblems(revision, answer, 'tools/call');
    if (schema.length) problems.push(`a good ${revision} tools/call answer breaks the schema: ${schema.join('; ')}`);
  }
}
