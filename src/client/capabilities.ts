/** The capabilities a client declares: only those whose handlers exist, in the shape of the revision in use. */
import { revision } from '../protocol/revisions.js';
import type { ClientCapabilities } from '../protocol/types.js';
import type { ProtocolVersion } from '../protocol/versions.js';
import { TASKS_EXTENSION } from '../protocol/meta.js';
import type { ConnectOptions } from './options.js';
import { tasksSettings } from './tasks/settings.js';

export function clientCapabilities(options: ConnectOptions, v: ProtocolVersion, declareTasksExtension = false): ClientCapabilities {
  const known = revision(v).capabilities.client;
  const caps: ClientCapabilities = {};
  if (options.onRoots) caps.roots = known.has('roots.listChanged') ? { listChanged: true } : {};
  if (options.onSample) caps.sampling = options.sampleWithTools && known.has('sampling.tools') ? { tools: {} } : {};
  if (options.onElicit && known.has('elicitation')) caps.elicitation = known.has('elicitation.url') ? { form: {}, url: {} } : {};
  // Only 2026-07-28's ClientCapabilities defines `extensions` (SEP-2133 negotiation).
  if (options.extensions && Object.keys(options.extensions).length > 0 && known.has('extensions'))
    caps.extensions = { ...options.extensions };
  const tasks = tasksSettings(options);
  // 2025-11-25 basic/utilities/tasks.mdx §Client Capabilities: the requests this client runs as tasks (legacy/task-receiver.ts).
  if (tasks.receive && known.has('tasks') && (options.onSample || caps.elicitation)) {
    const requests: Record<string, object> = {};
    if (options.onSample) requests.sampling = { createMessage: {} };
    if (caps.elicitation) requests.elicitation = { create: {} };
    caps.tasks = { list: {}, cancel: {}, requests };
  }
  // ext-tasks §Capability Negotiation: declared per request, where a task may come back (tools/call, tasks/*).
  if (declareTasksExtension && tasks.call && known.has('extensions')) caps.extensions = { ...caps.extensions, [TASKS_EXTENSION]: {} };
  return caps;
}
