/**
 * A request's SSE stream on Streamable HTTP, read until its response, and resumed with
 * `Last-Event-ID` after the server's `retry` where the revision has resumability (2025-11-25
 * transports.mdx §Sending Messages 6, §Resumability and Redelivery). A resumed stream belongs
 * to the request's session and carries its id on every GET, never another's and never none: a
 * GET without the id opens the deprecated HTTP+SSE transport on a server that serves both.
 * The session's standalone stream is the handshake era's (client/legacy/standalone-stream.ts).
 */
import type { JsonRpcResponse } from '../../protocol/jsonrpc.js';
import type { PendingCall } from '../../jsonrpc/pending.js';
import { JanusError } from '../../protocol/errors.js';
import { ChannelError } from '../channel.js';
import { tooLarge } from '../limits.js';
import { discard, mediaType, pumpEvents, sleep, statusError } from './http-common.js';
import { SseParser, type SseEvent } from './sse-parser.js';

export interface ReconnectOptions {
  /** Delay before a reconnect when the server sent no `retry` (default 1000 ms). */
  initialDelayMs?: number;
  /** Cap of the exponential backoff between failed reconnects (default 30 000 ms). */
  maxDelayMs?: number;
  /** Reconnects in a row that deliver nothing before giving up (default 3). */
  maxRetries?: number;
}

/** One POSTed request; its `signal` aborts once it settles. */
export type Op = PendingCall<JsonRpcResponse>;

/** What the streams need of their channel. */
export interface StreamHost {
  /** The session now: undefined when there is none (or it expired). */
  readonly session: string | undefined;
  /** The endpoint, for error messages. */
  readonly url: URL;
  readonly backoff: Required<ReconnectOptions>;
  readonly maxBytes: number;
  /** GETs the endpoint for `session`, after `lastEventId` when not ''; redirects followed only where safe. */
  get(
    session: string | undefined,
    lastEventId: string,
    signal: AbortSignal,
    what: string,
    extra?: Record<string, string>,
  ): Promise<Response>;
  /** A 404 to a request of `session`: the session is gone; the error to fail with. */
  expired(session: string, res: Response): Promise<Error>;
  /** Routes one event's messages (a response to `op` settles it). */
  onEvent(event: SseEvent, status: number, op?: Op): void;
  warn(message: string): void;
}

/** The delay before reconnect number `failures + 1`: the server's `retry` first, then exponential backoff. */
export function delay(backoff: Required<ReconnectOptions>, retry: number | undefined, failures: number): number {
  const base = retry ?? backoff.initialDelayMs;
  if (failures === 0) return base;
  return Math.max(base, Math.min(backoff.maxDelayMs, base * 2 ** failures));
}

/**
 * Reads a request's SSE stream until its response. If the stream ends first and the last
 * event had an id (and the request is resumable: not 2026-07-28), resumes with GET +
 * Last-Event-ID after the server's `retry`, as often as the server polls, giving up after
 * `maxRetries` reconnects in a row that deliver nothing, or when the session is gone.
 */
export async function readRequestStream(
  host: StreamHost,
  first: Response,
  method: string,
  resumable: boolean,
  extra: Record<string, string> | undefined,
  op: Op,
): Promise<void> {
  const status = first.status;
  const parser = new SseParser(
    (ev) => host.onEvent(ev, status, op),
    host.maxBytes,
    (max) => op.reject(new ChannelError(tooLarge(`An event on the stream of ${method}`, max))),
  );
  const session = host.session;
  let res = first;
  let failures = 0;
  for (;;) {
    const before = parser.dispatched;
    const { error } = await pumpEvents(res.body, parser, () => op.settled);
    if (op.settled) return;
    if (!resumable || parser.lastEventId === '') {
      throw new ChannelError(`the event stream of ${method} ended before its response`, undefined, undefined, { cause: error });
    }
    if (parser.dispatched > before) failures = 0;
    let last: unknown = error;
    for (;;) {
      if (failures > host.backoff.maxRetries) {
        throw new ChannelError(`could not resume the event stream of ${method} (${failures} attempts)`, undefined, undefined, {
          cause: last,
        });
      }
      await sleep(delay(host.backoff, parser.retry, failures), op.signal);
      failures++;
      if (host.session !== session) throw new ChannelError(`the session ended before the response to ${method} came`);
      let r: Response;
      try {
        r = await host.get(session, parser.lastEventId, op.signal, `resuming ${method}`, extra);
      } catch (e) {
        if (op.settled) return;
        if (e instanceof ChannelError || e instanceof JanusError) throw e; // a redirect not followed, an authorization refused: trying again changes nothing
        last = e;
        continue;
      }
      if (op.settled) return discard(r);
      if (r.ok && mediaType(r) === 'text/event-stream') {
        res = r;
        parser.reset();
        break;
      }
      if (r.status === 404 && session !== undefined) throw await host.expired(session, r);
      if (r.status >= 500 || r.status === 429) {
        last = await statusError(`GET (resuming the event stream of ${method})`, host.url, r, host.maxBytes);
        continue;
      }
      // 405 (no GET here), another 4xx, or a reply that is not a stream: nothing to resume.
      throw await statusError(`GET (resuming the event stream of ${method})`, host.url, r, host.maxBytes);
    }
  }
}
