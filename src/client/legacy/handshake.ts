/**
 * The handshake-era session start (basic/lifecycle.mdx): `initialize`, then
 * `notifications/initialized`. Over HTTP, an initialize refused as if nothing were there
 * falls back to the deprecated HTTP+SSE transport (streamable-http.mdx §Backward
 * Compatibility). Era detection runs it once; an expired HTTP session runs it again.
 */
import { ErrorCode, JanusError, McpError } from '../../protocol/errors.js';
import { since } from '../../protocol/revisions.js';
import type { InitializeResult } from '../../protocol/types.js';
import { isLegacyVersion, type LegacyVersion } from '../../protocol/versions.js';
import { clientCapabilities } from '../capabilities.js';
import { ChannelError } from '../channel.js';
import { notAnEndpoint } from '../channels/http-common.js';
import type { Verdict } from '../known-server.js';
import type { Params } from '../middleware.js';
import { DEFAULT_TIMEOUT_MS } from '../peer.js';
import { resultFor } from '../results.js';
import { silentServerError } from '../start-watch.js';
import { errorOf, httpStatusOfError } from '../wire-errors.js';
import type { HandshakeParty, ProbeEvidence } from '../handshake-party.js';

/** Statuses that mean "nothing here handles this" rather than "an MCP server said no". */
const NOTHING_HERE = new Set([404, 405, 501]);

/** Errors only a 2026-07-28 server sends (basic/index.mdx §Error Codes). */
const MODERN_ERRORS = new Set<number>([
  ErrorCode.HeaderMismatch,
  ErrorCode.MissingRequiredClientCapability,
  ErrorCode.UnsupportedProtocolVersion,
]);

/** `initialize` + `notifications/initialized` (lifecycle.mdx), falling back to HTTP+SSE on HTTP. */
export async function handshake(party: HandshakeParty, version: LegacyVersion, evidence: ProbeEvidence = {}): Promise<Verdict> {
  const { wire, options } = party;
  const request = async (params: Params): Promise<InitializeResult> => {
    const response = await wire.call('initialize', params);
    if ('error' in response) throw errorOf(response);
    return resultFor('initialize', response.result);
  };
  // Each attempt (Streamable HTTP, then the HTTP+SSE fallback) is a request of its own.
  const send = () =>
    party.middleware.around(
      'initialize',
      { protocolVersion: version, capabilities: clientCapabilities(options, version), clientInfo: party.clientInfo },
      undefined,
      request,
    );
  let result: InitializeResult;
  try {
    result = await send();
  } catch (e) {
    // streamable-http.mdx §Backward Compatibility: initialize refused with 400/404/405 (with or
    // without a JSON-RPC body) means the deprecated HTTP+SSE transport may be there instead.
    const status = e instanceof ChannelError ? e.status : httpStatusOfError(e);
    // ...but only "with no modern body": a modern error (say -32022 from a modern-only server) is the real answer.
    const modernBody = e instanceof McpError && MODERN_ERRORS.has(e.code);
    const url = wire.url;
    const fallback =
      wire.kind === 'http' && url !== undefined && !modernBody && (status === 400 || status === 404 || status === 405 || status === 501);
    if (!fallback) {
      if (evidence.silentForMs !== undefined && e instanceof JanusError && e.code === 'TIMEOUT') {
        throw silentServerError(e, evidence.silentForMs, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      }
      throw e;
    }
    const { LegacySseChannel } = await import('./sse-channel.js');
    try {
      await wire.swap(
        new LegacySseChannel(url, { headers: options.headers, fetch: options.fetch, maxMessageBytes: options.maxMessageBytes }),
      );
    } catch (sse) {
      throw nothingThere(url, evidence, e, sse) ?? sse;
    }
    result = await send();
  }
  const negotiated = result.protocolVersion;
  if (!isLegacyVersion(negotiated)) {
    await party.close();
    throw new JanusError('ERA_DETECTION', `the server chose protocol ${String(negotiated)}, which this client does not speak`);
  }
  const verdict: Verdict = {
    era: 'legacy',
    version: negotiated,
    serverInfo: result.serverInfo,
    capabilities: result.capabilities ?? {},
    instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
  };
  party.server.settle(verdict);
  wire.setLegacyVersion(negotiated);
  await wire.notify('notifications/initialized');
  wire.openEventStream();
  return verdict;
}

/**
 * The probe (when one was sent), initialize and the HTTP+SSE GET were all refused with
 * 404/405/501 and no JSON-RPC body: nothing at this URL speaks MCP, in any revision.
 */
function nothingThere(url: URL, evidence: ProbeEvidence, init: unknown, sse: unknown): Error | undefined {
  const refused = (e: unknown): e is ChannelError & { status: number } =>
    e instanceof ChannelError && e.status !== undefined && NOTHING_HERE.has(e.status);
  if (evidence.probeAnswered || !refused(init) || !refused(sse)) return undefined;
  if (evidence.probeStatus !== undefined && !NOTHING_HERE.has(evidence.probeStatus)) return undefined;
  const answers = [
    ...(evidence.probeStatus !== undefined ? [{ what: 'POST server/discover', status: evidence.probeStatus }] : []),
    { what: 'POST initialize', status: init.status },
    { what: `GET (the ${since((r) => r.transport.httpSse)} HTTP+SSE stream)`, status: sse.status },
  ];
  return notAnEndpoint(url, answers, sse);
}
