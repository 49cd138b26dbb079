/**
 * Admitting a `subscriptions/listen` request (basic/patterns/subscriptions.mdx): what it asks
 * is checked against the server's limits and narrowed to what the server can deliver, the
 * extensions grant their own parts, and the stream opens (listen.ts). Through middleware,
 * `next()` opens the stream and resolves when it ends.
 */
import { ErrorCode } from '../../protocol/errors.js';
import { errorResponse, resultResponse, type JsonRpcRequest, type RequestId } from '../../protocol/jsonrpc.js';
import { META } from '../../protocol/meta.js';
import type { SubscriptionFilter } from '../../protocol/types.js';
import { extend } from '../../protocol/extend.js';
import type { Cancellation, InflightRegistry } from '../cancel.js';
import { isObject, isUri } from '../guards.js';
import { runChain, type Exchange, type Middleware } from '../middleware.js';
import type { Params } from '../routes.js';
import type { Inbound } from '../transport-seam.js';
import { toWireError } from '../wire-error.js';
import type { Envelope } from './envelope.js';
import { Subscription } from './listen.js';
import { withServerInfo, type ModernDeps } from './routes.js';

/**
 * Opens a listen stream: settles when the stream ends, or, with `endByUnwatch` (no middleware
 * waits on it), returns at once on a channel that has `watch`.
 */
export function openListen(
  server: ModernDeps,
  id: RequestId,
  params: Params,
  env: Envelope,
  inbound: Inbound,
  inflight: InflightRegistry | undefined,
  endByUnwatch: boolean,
): void | Promise<void> {
  const asked = params.notifications;
  if (!isObject(asked)) {
    return inbound.send(errorResponse(id, { code: ErrorCode.InvalidParams, message: 'subscriptions/listen needs params.notifications' }));
  }
  const { maxListenStreams, maxListenUris } = server.limits;
  if (server.hub.size >= maxListenStreams) {
    return inbound.send(
      errorResponse(id, {
        code: ErrorCode.InternalError,
        message: `Server busy: ${maxListenStreams} subscriptions/listen streams are open`,
      }),
    );
  }
  const caps = server.capabilities(env.version);
  // Honour only what this server can deliver (subscriptions.mdx: the ack names the subset).
  const filter: SubscriptionFilter = {};
  if (asked.toolsListChanged === true && caps.tools?.listChanged) filter.toolsListChanged = true;
  if (asked.promptsListChanged === true && caps.prompts?.listChanged) filter.promptsListChanged = true;
  if (asked.resourcesListChanged === true && caps.resources?.listChanged) filter.resourcesListChanged = true;
  const uris = asked.resourceSubscriptions;
  if (Array.isArray(uris) && caps.resources?.subscribe) {
    // Distinct URIs, at most maxListenUris: a stream holds them for its lifetime and the
    // acknowledgement names them all, so the list is refused before anything is kept.
    const distinct = new Set<string>();
    for (const u of uris) {
      // Only URIs: each is echoed in the acknowledgement and in every resources/updated.
      if (!isUri(u)) continue;
      distinct.add(u);
      if (distinct.size > maxListenUris) {
        const message = `subscriptions/listen: at most ${maxListenUris} distinct resourceSubscriptions per stream (got ${uris.length} entries)`;
        return inbound.send(errorResponse(id, { code: ErrorCode.InvalidParams, message }));
      }
    }
    filter.resourceSubscriptions = [...distinct];
  }
  // Extensions grant their own parts (a task's status), or refuse the stream (McpError).
  const topics: string[] = [];
  if (server.extensions.size > 0) {
    const client = { info: env.clientInfo, capabilities: env.capabilities };
    const site = { era: 'modern' as const, protocolVersion: env.version, client, inbound, session: undefined };
    try {
      for (const e of server.extensions.all) {
        const grant = e.listen?.(asked, client, site);
        if (grant === undefined) continue;
        Object.assign(filter, grant.acknowledged);
        topics.push(...grant.topics);
      }
    } catch (e) {
      return inbound.send(errorResponse(id, toWireError(e, env.version, server)));
    }
  }
  // A watched channel (HTTP) hears of the end at `unwatch` (transport-seam.ts): no promise per
  // open stream. Otherwise the work settles when the stream ends, the one promise it holds.
  if (endByUnwatch && inbound.watch !== undefined)
    return new Subscription(server, id, filter, topics, inbound, inflight, undefined).start();
  return new Promise<void>((resolve) => new Subscription(server, id, filter, topics, inbound, inflight, resolve).start());
}

/**
 * subscriptions/listen through middleware: `next()` opens the stream and resolves when it
 * ends (the stream sends its own answers); a middleware that refuses it answers instead.
 */
export async function listenThrough(
  server: ModernDeps,
  chain: readonly Middleware[],
  req: JsonRpcRequest,
  ex: Exchange,
  env: Envelope,
  inbound: Inbound,
  inflight: InflightRegistry | undefined,
  cancel: Cancellation,
): Promise<void> {
  let opened = false;
  try {
    const result = await runChain(chain, ex, async () => {
      opened = true;
      // Middleware hears of the stream's end (`next()` resolves then): the promise is kept.
      await openListen(server, req.id, ex.params, env, inbound, inflight, false);
      return undefined;
    });
    if (!opened && isObject(result)) {
      // Answered by middleware: as a graceful end is (subscriptions.mdx §Graceful closure), naming the stream.
      const _meta = { ...(isObject(result._meta) ? result._meta : {}), [META.subscriptionId]: req.id };
      inbound.send(resultResponse(req.id, withServerInfo(server, extend(result, { _meta }), undefined, 'complete')));
    }
  } catch (e) {
    if (!opened) inbound.send(errorResponse(req.id, toWireError(e, env.version, server)));
    else server.reportError(e);
  } finally {
    cancel.release();
  }
}
