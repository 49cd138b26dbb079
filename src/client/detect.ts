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
import {
  LATEST_LEGACY_VERSION,
  latestVersion,
  LEGACY_VERSIONS,
  MODERN_VERSIONS,
  isLegacyVersion,
  isModernVersion,
  type LegacyVersion,
  type ProtocolVersion,
} from '../protocol/versions.js';
import { ChannelError } from './channel.js';
import type { Verdict } from './known-server.js';
import { HANDSHAKE_CLIENT } from './eras.js';
import type { HandshakeParty, HandshakeWire, ProbeEvidence } from './handshake-party.js';
import { verdictFromDiscover } from './modern/discover.js';
import type { RequestParams } from './modern/envelope.js';
import type { CallOptions } from './peer.js';
import type { ResultFor } from './results.js';
import { DEFAULT_PROBE_TIMEOUT_MS, DEFAULT_START_TIMEOUT_MS, StartWatch, type WatchedWire } from './start-watch.js';
import { httpStatusOfError, supportedVersionsOf } from './wire-errors.js';

/**
 * The handshake era's session start, where the build has that era (eras.ts); a build without it
 * refuses, saying what led to the handshake era and what it speaks instead.
 */
function handshake(party: HandshakeParty, version: LegacyVersion, evidence?: ProbeEvidence): Promise<Verdict> {
  if (HANDSHAKE_CLIENT !== undefined) return HANDSHAKE_CLIENT.handshake(party, version, evidence);
  return Promise.reject(new JanusError('PROTOCOL', withoutHandshakeEra(version, evidence)));
}

function withoutHandshakeEra(version: LegacyVersion, evidence: ProbeEvidence | undefined): string {
  const speaks = `this build of janus-mcp leaves the handshake era out and speaks ${MODERN_VERSIONS.join(', ')}`;
  if (evidence === undefined) return `cannot connect at ${version}, as the options ask: ${speaks}`;
  if (evidence.supported !== undefined) return `the server speaks ${evidence.supported.join(', ')}, and ${speaks}`;
  const refused =
    evidence.probeStatus !== undefined
      ? `HTTP ${evidence.probeStatus}`
      : evidence.silentForMs !== undefined
        ? `no answer within ${evidence.silentForMs} ms`
        : 'a JSON-RPC error';
  return `the server looks like a handshake-era one (server/discover got ${refused}), and ${speaks}`;
}

/** What detection needs of the client: the handshake's party, on a wire the stdio start watch can watch. */
export interface DetectionParty extends HandshakeParty {
  readonly wire: HandshakeWire & WatchedWire;
}

/** Sends the probe: a 2026-07-28 request (modern/connection.ts), with `version` in `_meta` when given. */
export interface ModernProbe {
  send<M extends string>(method: M, params: RequestParams, options?: CallOptions, version?: ProtocolVersion): Promise<ResultFor<M>>;
}

/** The versions a server listed (its strings; anything else left out). */
function supportedList(supported: unknown): string[] {
  return Array.isArray(supported) ? supported.filter((v): v is string => typeof v === 'string') : [];
}

/** The newest version both sides speak, from a server's list. */
function bestMutual(supported: unknown): { modern?: ProtocolVersion; legacy?: LegacyVersion } {
  const list = supportedList(supported);
  const modern = [...MODERN_VERSIONS].reverse().find((v) => list.includes(v));
  const legacy = [...LEGACY_VERSIONS].reverse().find((v) => list.includes(v));
  return { modern, legacy };
}

/** Decides the era (and settles the verdict with `party.server`): pinned by the options, or probed. */
export async function detectEra(party: DetectionParty, probe: ModernProbe): Promise<Verdict> {
  const { options } = party;
  const pinned = options.protocolVersion;
  if (pinned !== undefined) {
    if (isModernVersion(pinned)) return modern(party, probe, pinned, false);
    if (isLegacyVersion(pinned)) return handshake(party, pinned);
    throw new JanusError('CONNECTION', `unknown protocol version ${pinned}`);
  }
  if (options.era === 'legacy') return handshake(party, LATEST_LEGACY_VERSION);
  if (options.era === 'modern') return modern(party, probe, latestVersion(), false);
  return probeEra(party, probe);
}

async function probeEra(party: DetectionParty, probe: ModernProbe): Promise<Verdict> {
  const { options, wire } = party;
  const stdio = wire.kind !== 'http' && wire.kind !== 'sse';
  const probeTimeoutMs = options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  let version: ProtocolVersion = latestVersion();
  for (let attempt = 0; attempt < 2; attempt++) {
    let result: ResultFor<'server/discover'>;
    // The first probe waits for the server to start; a retry follows an answer, so the server is up.
    const watch =
      stdio && attempt === 0 ? new StartWatch(wire, probeTimeoutMs, options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS) : undefined;
    try {
      result = await probe.send('server/discover', {}, watch?.callOptions() ?? { timeoutMs: stdio ? probeTimeoutMs : options.timeoutMs });
    } catch (e) {
      if (e instanceof McpError) {
        if (e.code === ErrorCode.UnsupportedProtocolVersion) {
          const supported = supportedVersionsOf(e.data);
          const mutual = bestMutual(supported);
          if (mutual.modern && attempt === 0) {
            version = mutual.modern;
            continue;
          }
          if (mutual.legacy) return handshake(party, mutual.legacy, { supported: supportedList(supported) });
          throw new JanusError('ERA_DETECTION', `the server supports none of our versions: ${JSON.stringify(supported)}`, { cause: e });
        }
        if (e.code === ErrorCode.HeaderMismatch || e.code === ErrorCode.MissingRequiredClientCapability) throw e;
        // streamable-http.mdx §Backward Compatibility: a 404 carrying -32601 is a modern server, not a legacy one.
        if (e.code === ErrorCode.MethodNotFound && httpStatusOfError(e) === 404) {
          return modern(party, probe, version, false);
        }
        return handshake(party, LATEST_LEGACY_VERSION, { probeAnswered: true });
      }
      if (e instanceof ChannelError) {
        if (e.status === 401 || e.status === 403) throw e;
        // 501 Not Implemented says, like 405, that this endpoint does not take the request.
        if (e.status !== undefined && ((e.status >= 400 && e.status < 500) || e.status === 501)) {
          return handshake(party, LATEST_LEGACY_VERSION, { probeStatus: e.status });
        }
        throw e;
      }
      if (e instanceof JanusError && e.code === 'TIMEOUT' && stdio)
        return handshake(party, LATEST_LEGACY_VERSION, { silentForMs: watch?.silentForMs });
      throw e;
    } finally {
      watch?.stop();
    }
    const supported = result.supportedVersions;
    const mutual = bestMutual(supported);
    if (mutual.modern) {
      if (mutual.modern !== version) return modern(party, probe, mutual.modern, true);
      return settled(party, verdictFromDiscover(mutual.modern, result));
    }
    if (mutual.legacy) return handshake(party, mutual.legacy, { supported: supportedList(supported) });
    throw new JanusError('ERA_DETECTION', `the server supports none of our versions: ${JSON.stringify(supported)}`);
  }
  throw new JanusError('ERA_DETECTION', 'version negotiation did not settle');
}

function settled(party: DetectionParty, verdict: Verdict): Verdict {
  party.server.settle(verdict);
  return verdict;
}

/**
 * A modern verdict. When the era or version was given up front nothing is sent now (the
 * caller asked to skip the probe): serverInfo is learnt from the first result's `_meta`,
 * capabilities and instructions from `client.discover()`.
 */
async function modern(party: DetectionParty, probe: ModernProbe, version: ProtocolVersion, discover: boolean): Promise<Verdict> {
  const provisional = settled(party, { era: 'modern', version, serverInfo: undefined, capabilities: {}, instructions: undefined });
  if (!discover) return provisional;
  return settled(party, verdictFromDiscover(version, await probe.send('server/discover', {}, {}, version)));
}
