/**
 * Era detection, as the 2026-07-28 backward-compatibility sections say
 * (basic/versioning.mdx; transports/stdio.mdx and streamable-http.mdx §Backward
 * Compatibility): probe with `server/discover`; a recognised modern answer means a modern
 * server (retry -32022 with a mutually supported version); -32020/-32021 are raised, not
 * fallen back from; anything else (another error, HTTP 400/404/405/501 without a modern
 * body, a silent stdio server) means legacy, then `initialize` with the best mutual
 * revision. Auth failures (401/403) are never era evidence. The verdict is decided once.
 *
 * "Silent" on stdio is measured from the server's first sign of life, not from the spawn,
 * so that a slow start (npx, tsx) is not taken for a legacy server (start-watch.ts): after
 * one second without an answer a `ping` follows the probe; once anything comes back,
 * server/discover has `probeTimeoutMs` (default 3000) to be answered; with no sign of life
 * at all the client gives up waiting after `startTimeoutMs` (default 30 000) and sends
 * initialize. Over HTTP there is no start-up to wait for: the probe has `timeoutMs`.
 * A process that exits meanwhile fails the connection with its exit status, never a verdict.
 *
 * Over HTTP, a URL that answers the probe, initialize and the HTTP+SSE GET all with
 * 404/405/501 is "not an MCP endpoint", which is what the error says.
 */
import { ErrorCode, JanusError, McpError } from '../protocol/errors.js';
import { META } from '../protocol/meta.js';
import type { Implementation, ServerCapabilities } from '../protocol/types.js';
import {
  LATEST_LEGACY_VERSION, LATEST_VERSION, LEGACY_VERSIONS, MODERN_VERSIONS, isLegacyVersion, isModernVersion, type Era, type LegacyVersion, type ProtocolVersion,
} from '../protocol/versions.js';
import { since } from '../protocol/revisions.js';
import { clientCapabilities } from './capabilities.js';
import { ChannelError } from './channel.js';
import type { Client } from './client.js';
import type { ConnectOptions } from './options.js';
import { DEFAULT_TIMEOUT_MS, unwrap } from './peer.js';
import { httpStatusOf, notAnEndpoint } from './channels/http-common.js';
import type { JsonRpcResponse } from '../protocol/jsonrpc.js';
import { DEFAULT_PROBE_TIMEOUT_MS, DEFAULT_START_TIMEOUT_MS, StartWatch, silentServerError } from './start-watch.js';

function unwrapWithStatus(r: JsonRpcResponse): Params {
  try {
    return unwrap(r);
  } catch (e) {
    const status = httpStatusOf(r);
    if (status !== undefined) (e as { httpStatus?: number }).httpStatus = status;
    throw e;
  }
}

export interface Verdict {
  era: Era;
  version: ProtocolVersion;
  serverInfo: Implementation | undefined;
  capabilities: ServerCapabilities;
  instructions: string | undefined;
}

type Params = Record<string, unknown>;

/** What the probe learnt that the legacy step may need for its errors. */
export interface ProbeEvidence {
  /** The HTTP status the probe was refused with. */
  probeStatus?: number;
  /** The probe got a JSON-RPC answer (an error): something there speaks JSON-RPC. */
  probeAnswered?: boolean;
  /** stdio: the server said nothing at all for this long before the probe gave up. */
  silentForMs?: number;
}

/** Statuses that mean "nothing here handles this" rather than "an MCP server said no". */
const NOTHING_HERE = new Set([404, 405, 501]);

/** Errors only a 2026-07-28 server sends (basic/index.mdx §Error Codes). */
const MODERN_ERRORS = new Set<number>([ErrorCode.HeaderMismatch, ErrorCode.MissingRequiredClientCapability, ErrorCode.UnsupportedProtocolVersion]);

/** The newest version both sides speak, from a server's list. */
function bestMutual(supported: unknown): { modern?: ProtocolVersion; legacy?: LegacyVersion } {
  const list = Array.isArray(supported) ? supported.filter((v): v is string => typeof v === 'string') : [];
  const modern = [...MODERN_VERSIONS].reverse().find((v) => list.includes(v));
  const legacy = [...LEGACY_VERSIONS].reverse().find((v) => list.includes(v));
  return { modern, legacy };
}

export async function detectEra(client: Client, options: ConnectOptions): Promise<Verdict> {
  const pinned = options.protocolVersion;
  if (pinned !== undefined) {
    if (isModernVersion(pinned)) return modern(client, pinned, false);
    if (isLegacyVersion(pinned)) return legacy(client, pinned);
    throw new JanusError('CONNECTION', `unknown protocol version ${pinned}`);
  }
  if (options.era === 'legacy') return legacy(client, LATEST_LEGACY_VERSION);
  if (options.era === 'modern') return modern(client, LATEST_VERSION, false);
  return probe(client, options);
}

async function probe(client: Client, options: ConnectOptions): Promise<Verdict> {
  const stdio = client.transportKind !== 'http' && client.transportKind !== 'sse';
  const probeTimeoutMs = options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  let version: ProtocolVersion = LATEST_VERSION;
  for (let attempt = 0; attempt < 2; attempt++) {
    let result: Params;
    // The first probe waits for the server to start; a retry follows an answer, so the server is up.
    const watch = stdio && attempt === 0 ? new StartWatch(client, probeTimeoutMs, options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS) : undefined;
    try {
      result = await client.modernRequest('server/discover', {}, watch?.callOptions() ?? { timeoutMs: stdio ? probeTimeoutMs : options.timeoutMs });
    } catch (e) {
      if (e instanceof McpError) {
        if (e.code === ErrorCode.UnsupportedProtocolVersion) {
          const mutual = bestMutual((e.data as Params | undefined)?.supported);
          if (mutual.modern && attempt === 0) {
            version = mutual.modern;
            continue;
          }
          if (mutual.legacy) return legacy(client, mutual.legacy);
          throw new JanusError('ERA_DETECTION', `the server supports none of our versions: ${JSON.stringify((e.data as Params | undefined)?.supported)}`, { cause: e });
        }
        if (e.code === ErrorCode.HeaderMismatch || e.code === ErrorCode.MissingRequiredClientCapability) throw e;
        // streamable-http.mdx §Backward Compatibility: a 404 carrying -32601 is a modern server, not a legacy one.
        if (e.code === ErrorCode.MethodNotFound && (e as McpError & { httpStatus?: number }).httpStatus === 404) {
          return modern(client, version, false);
        }
        return legacy(client, LATEST_LEGACY_VERSION, { probeAnswered: true });
      }
      if (e instanceof ChannelError) {
        if (e.status === 401 || e.status === 403) throw e;
        // 501 Not Implemented says, like 405, that this endpoint does not take the request.
        if (e.status !== undefined && ((e.status >= 400 && e.status < 500) || e.status === 501)) {
          return legacy(client, LATEST_LEGACY_VERSION, { probeStatus: e.status });
        }
        throw e;
      }
      if (e instanceof JanusError && e.code === 'TIMEOUT' && stdio) return legacy(client, LATEST_LEGACY_VERSION, { silentForMs: watch?.silentForMs });
      throw e;
    } finally {
      watch?.stop();
    }
    const supported = result.supportedVersions;
    const mutual = bestMutual(supported);
    if (mutual.modern) {
      if (mutual.modern !== version) return modern(client, mutual.modern, true);
      return fromDiscover(client, mutual.modern, result);
    }
    if (mutual.legacy) return legacy(client, mutual.legacy);
    throw new JanusError('ERA_DETECTION', `the server supports none of our versions: ${JSON.stringify(supported)}`);
  }
  throw new JanusError('ERA_DETECTION', 'version negotiation did not settle');
}

export function fromDiscover(client: Client, version: ProtocolVersion, result: Params): Verdict {
  const verdict: Verdict = {
    era: 'modern',
    version,
    serverInfo: (result._meta as Params | undefined)?.[META.serverInfo] as Implementation | undefined ?? (result.serverInfo as Implementation | undefined),
    capabilities: (result.capabilities ?? {}) as ServerCapabilities,
    instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
  };
  client.setVerdict(verdict);
  return verdict;
}

/**
 * A modern verdict. When the era or version was given up front nothing is sent now (the
 * caller asked to skip the probe): serverInfo is learnt from the first result's `_meta`,
 * capabilities and instructions from `client.discover()`.
 */
async function modern(client: Client, version: ProtocolVersion, discover: boolean): Promise<Verdict> {
  const provisional: Verdict = { era: 'modern', version, serverInfo: undefined, capabilities: {}, instructions: undefined };
  client.setVerdict(provisional);
  if (!discover) return provisional;
  return fromDiscover(client, version, await client.modernRequest('server/discover', {}, {}, version));
}

/** `initialize` + `notifications/initialized` (lifecycle.mdx), falling back to HTTP+SSE on HTTP. */
export async function legacy(client: Client, version: LegacyVersion, evidence: ProbeEvidence = {}): Promise<Verdict> {
  const options = client.settings;
  const send = async () =>
    unwrapWithStatus(await client.rawPeer.call('initialize', {
      protocolVersion: version,
      capabilities: clientCapabilities(options, version),
      clientInfo: client.clientInfo,
    }));
  let result: Params;
  try {
    result = await send();
  } catch (e) {
    // streamable-http.mdx §Backward Compatibility: initialize refused with 400/404/405 (with or
    // without a JSON-RPC body) means the deprecated HTTP+SSE transport may be there instead.
    const status = e instanceof ChannelError ? e.status : (e as { httpStatus?: number }).httpStatus;
    // ...but only "with no modern body": a modern error (say -32022 from a modern-only server) is the real answer.
    const modernBody = e instanceof McpError && MODERN_ERRORS.has(e.code);
    const fallback = client.transportKind === 'http' && !modernBody && (status === 400 || status === 404 || status === 405 || status === 501);
    if (!fallback) {
      if (evidence.silentForMs !== undefined && e instanceof JanusError && e.code === 'TIMEOUT') {
        throw silentServerError(e, evidence.silentForMs, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      }
      throw e;
    }
    const { LegacySseChannel } = await import('./channels/legacy-sse.js');
    const url = (client.rawChannel as unknown as { url: URL }).url;
    try {
      await client.swapChannel(new LegacySseChannel(url, { headers: options.headers, fetch: options.fetch }));
    } catch (sse) {
      throw nothingThere(url, evidence, e, sse) ?? sse;
    }
    result = await send();
  }
  const negotiated = result.protocolVersion;
  if (!isLegacyVersion(negotiated)) {
    await client.close();
    throw new JanusError('ERA_DETECTION', `the server chose protocol ${String(negotiated)}, which this client does not speak`);
  }
  const verdict: Verdict = {
    era: 'legacy',
    version: negotiated,
    serverInfo: result.serverInfo as Implementation | undefined,
    capabilities: (result.capabilities ?? {}) as ServerCapabilities,
    instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
  };
  client.setVerdict(verdict);
  client.rawChannel.setLegacyVersion?.(negotiated);
  await client.rawPeer.notify('notifications/initialized');
  client.rawChannel.openEventStream?.();
  return verdict;
}

/**
 * The probe (when one was sent), initialize and the HTTP+SSE GET were all refused with
 * 404/405/501 and no JSON-RPC body: nothing at this URL speaks MCP, in any revision.
 */
function nothingThere(url: URL, evidence: ProbeEvidence, init: unknown, sse: unknown): Error | undefined {
  const refused = (e: unknown): e is ChannelError & { status: number } => e instanceof ChannelError && e.status !== undefined && NOTHING_HERE.has(e.status);
  if (evidence.probeAnswered || !refused(init) || !refused(sse)) return undefined;
  if (evidence.probeStatus !== undefined && !NOTHING_HERE.has(evidence.probeStatus)) return undefined;
  const answers = [
    ...(evidence.probeStatus !== undefined ? [{ what: 'POST server/discover', status: evidence.probeStatus }] : []),
    { what: 'POST initialize', status: init.status },
    { what: `GET (the ${since((r) => r.transport.httpSse)} HTTP+SSE stream)`, status: sse.status },
  ];
  return notAnEndpoint(url, answers, sse);
}
