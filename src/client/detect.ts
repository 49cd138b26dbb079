/**
 * Era detection, as the 2026-07-28 backward-compatibility sections say
 * (basic/versioning.mdx; transports/stdio.mdx and streamable-http.mdx §Backward
 * Compatibility): probe with `server/discover`; a recognised modern answer means a modern
 * server (retry -32022 with a mutually supported version); -32020/-32021 are raised, not
 * fallen back from; anything else (another error, HTTP 400/404/405 without a modern body, a
 * silent stdio server) means legacy, then `initialize` with the best mutual revision.
 * Auth failures (401/403) are never era evidence. The verdict is decided once.
 */
import { ErrorCode, JanusError, McpError } from '../protocol/errors.js';
import { META } from '../protocol/meta.js';
import type { Implementation, ServerCapabilities } from '../protocol/types.js';
import {
  LATEST_LEGACY_VERSION, LEGACY_VERSIONS, MODERN_VERSIONS, isLegacyVersion, isModernVersion, type Era, type LegacyVersion, type ProtocolVersion,
} from '../protocol/versions.js';
import { clientCapabilities } from './capabilities.js';
import { ChannelError } from './channel.js';
import type { Client } from './client.js';
import type { ConnectOptions } from './options.js';
import { unwrap } from './peer.js';
import { httpStatusOf } from './channels/http-common.js';
import type { JsonRpcResponse } from '../protocol/jsonrpc.js';

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
  if (options.era === 'modern') return modern(client, '2026-07-28', false);
  return probe(client, options);
}

async function probe(client: Client, options: ConnectOptions): Promise<Verdict> {
  const stdio = client.transportKind !== 'http' && client.transportKind !== 'sse';
  let version: ProtocolVersion = '2026-07-28';
  for (let attempt = 0; attempt < 2; attempt++) {
    let result: Params;
    try {
      result = await client.modernRequest('server/discover', {}, { timeoutMs: stdio ? options.probeTimeoutMs ?? 3000 : options.timeoutMs });
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
        return legacy(client, LATEST_LEGACY_VERSION);
      }
      if (e instanceof ChannelError) {
        if (e.status === 401 || e.status === 403) throw e;
        if (e.status !== undefined && e.status >= 400 && e.status < 500) return legacy(client, LATEST_LEGACY_VERSION);
        throw e;
      }
      if (e instanceof JanusError && e.code === 'TIMEOUT' && stdio) return legacy(client, LATEST_LEGACY_VERSION);
      throw e;
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
export async function legacy(client: Client, version: LegacyVersion): Promise<Verdict> {
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
    const fallback = client.transportKind === 'http' && !modernBody && (status === 400 || status === 404 || status === 405);
    if (!fallback) throw e;
    const { LegacySseChannel } = await import('./channels/legacy-sse.js');
    const url = (client.rawChannel as unknown as { url: URL }).url;
    await client.swapChannel(new LegacySseChannel(url, { headers: options.headers, fetch: options.fetch }));
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
