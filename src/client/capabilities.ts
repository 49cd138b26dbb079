/** The capabilities a client declares: only those whose handlers exist, in the shape of the revision in use. */
import type { ClientCapabilities } from '../protocol/types.js';
import type { ProtocolVersion } from '../protocol/versions.js';
import type { ConnectOptions } from './options.js';

export function clientCapabilities(options: ConnectOptions, v: ProtocolVersion): ClientCapabilities {
  const caps: ClientCapabilities = {};
  if (options.onRoots) caps.roots = v === '2026-07-28' ? {} : { listChanged: true };
  if (options.onSample) caps.sampling = options.sampleWithTools && v >= '2025-11-25' ? { tools: {} } : {};
  if (options.onElicit && v >= '2025-06-18') caps.elicitation = v >= '2025-11-25' ? { form: {}, url: {} } : {};
  return caps;
}
