/** The capabilities a client declares: only those whose handlers exist, in the shape of the revision in use. */
import { revision } from '../protocol/revisions.js';
import type { ClientCapabilities } from '../protocol/types.js';
import type { ProtocolVersion } from '../protocol/versions.js';
import type { ConnectOptions } from './options.js';

export function clientCapabilities(options: ConnectOptions, v: ProtocolVersion): ClientCapabilities {
  const known = revision(v).capabilities.client;
  const caps: ClientCapabilities = {};
  if (options.onRoots) caps.roots = known.has('roots.listChanged') ? { listChanged: true } : {};
  if (options.onSample) caps.sampling = options.sampleWithTools && known.has('sampling.tools') ? { tools: {} } : {};
  if (options.onElicit && known.has('elicitation')) caps.elicitation = known.has('elicitation.url') ? { form: {}, url: {} } : {};
  return caps;
}
