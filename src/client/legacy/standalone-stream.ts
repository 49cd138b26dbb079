/**
 * The standalone GET stream of a handshake-era Streamable HTTP session (2025-11-25
 * transports.mdx §Listening for Messages), for the server's unsolicited messages. It belongs to
 * one session and carries its id on every GET, never another's and never none.
 */
import { JanusError } from '../../protocol/errors.js';
import { ChannelError } from '../channel.js';
import { discard, mediaType, pumpEvents, sleep, statusError } from '../channels/http-common.js';
import { delay, type StreamHost } from '../channels/http-streams.js';
import { SseParser } from '../channels/sse-parser.js';
import { tooLarge } from '../limits.js';

const WHAT = 'GET (the standalone stream)';

/**
 * The standalone stream of `session`: reconnects after `retry` (backoff when nothing came),
 * ends when `controller` aborts, when the session is no longer the channel's, on 4xx (405:
 * the server offers none), or after `maxRetries` empty reconnects.
 */
export async function listenStandalone(host: StreamHost, controller: AbortController, session: string | undefined): Promise<void> {
  const parser = new SseParser(
    (ev) => host.onEvent(ev, 200),
    host.maxBytes,
    (max) => host.warn(`${tooLarge("An event on the session's standalone stream", max)} The event was skipped.`),
  );
  let failures = 0;
  for (let attempt = 0; ; attempt++) {
    if (attempt > 0) {
      if (failures > host.backoff.maxRetries) return;
      await sleep(delay(host.backoff, parser.retry, failures), controller.signal);
    }
    if (host.session !== session) return; // the session is over, and its stream with it
    let res: Response;
    try {
      res = await host.get(session, parser.lastEventId, controller.signal, WHAT);
    } catch (e) {
      if (controller.signal.aborted) return;
      if (e instanceof ChannelError || e instanceof JanusError) return host.warn(e.message); // a redirect not followed, an authorization refused: trying again changes nothing
      failures++;
      continue;
    }
    if (!res.ok || mediaType(res) !== 'text/event-stream') {
      // 405: the server offers no standalone stream. Other 4xx (e.g. 404, the session is
      // gone: the next POST says so): nothing to retry. 5xx: try again.
      if (res.status >= 500) {
        discard(res);
        failures++;
        continue;
      }
      // Another refusal is worth a line: the server's unsolicited messages will not come.
      if (!res.ok && res.status !== 404 && res.status !== 405) {
        host.warn(
          `${(await statusError(WHAT, host.url, res, host.maxBytes)).message}; the server's notifications outside requests will not arrive`,
        );
      } else discard(res);
      return;
    }
    parser.reset();
    const before = parser.dispatched;
    await pumpEvents(res.body, parser, () => controller.signal.aborted);
    if (controller.signal.aborted) return;
    failures = parser.dispatched > before ? 0 : failures + 1;
  }
}
