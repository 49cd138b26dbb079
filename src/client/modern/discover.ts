/** A modern verdict from a `server/discover` result (2026-07-28 basic/versioning.mdx; the server's info is in `_meta`). */
import { META } from '../../protocol/meta.js';
import type { DiscoverResult, Implementation } from '../../protocol/types.js';
import type { ProtocolVersion } from '../../protocol/versions.js';
import type { Verdict } from '../known-server.js';
import type { ServerInfoMeta } from './exchange.js';

export function verdictFromDiscover(version: ProtocolVersion, result: DiscoverResult): Verdict {
  const meta: ServerInfoMeta | undefined = result._meta;
  // `_meta` first, the spec's place; else a `serverInfo` member of the result itself.
  const body: { serverInfo?: Implementation; [key: string]: unknown } = result;
  return {
    era: 'modern',
    version,
    serverInfo: meta?.[META.serverInfo] ?? body.serverInfo,
    capabilities: result.capabilities ?? {},
    instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
  };
}
