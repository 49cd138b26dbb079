/** What both eras' dispatchers read from the server they serve. */
import type { Implementation, ServerCapabilities } from '../protocol/types.js';
import type { ProtocolVersion } from '../protocol/versions.js';
import type { CacheHint } from './features/resources.js';
import type { Operations } from './features/operations.js';
import type { Registry } from './registry.js';

export interface Internals {
  readonly info: Implementation;
  readonly instructions: string | undefined;
  readonly registry: Registry;
  readonly ops: Operations;
  /** Capabilities as of now, in the wire shape of `v`. */
  capabilities(v: ProtocolVersion): ServerCapabilities;
  /** Cache hint for a cacheable 2026-07-28 result of `method`. */
  cacheHint(method: string): CacheHint;
  reportError(error: unknown): void;
}
