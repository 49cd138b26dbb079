/**
 * A task record in each design's wire shape. 2025-11-25 (basic/utilities/tasks.mdx) nests the
 * task in `CreateTaskResult.task`, names its durations `ttl`/`pollInterval`, and serves the
 * result apart (`tasks/result`). The 2026 extension (ext-tasks) is flat, names them
 * `ttlMs`/`pollIntervalMs`, and inlines the result, error or input requests (`DetailedTask`).
 * Protocol level, shared with the client: imports no server code.
 */
import type { TaskRecord } from './store.js';

export { EXTENSION_ID } from './methods.js';
import { EXTENSION_ID } from './methods.js';
/** 2025-11-25 §Associating Task-Related Messages. */
export const RELATED_TASK = 'io.modelcontextprotocol/related-task';

type Json = Record<string, unknown>;

/** The `Task` fields both designs share (after `resultType` for a CreateTaskResult). */
function base(r: TaskRecord, resultType?: string): Json {
  const out: Json = resultType === undefined ? { taskId: r.taskId, status: r.status } : { resultType, taskId: r.taskId, status: r.status };
  if (r.statusMessage !== undefined) out.statusMessage = r.statusMessage;
  out.createdAt = r.createdAt;
  out.lastUpdatedAt = r.lastUpdatedAt;
  return out;
}

/** 2026 `Task`: what CreateTaskResult carries, flat (ext-tasks §Task Creation); no result, error or input requests. */
export function modernTask(r: TaskRecord, resultType?: string): Json {
  const out = base(r, resultType);
  out.ttlMs = r.ttlMs;
  if (r.pollIntervalMs !== undefined) out.pollIntervalMs = r.pollIntervalMs;
  return out;
}

/** 2026 `DetailedTask`: the task with what its status carries inlined (tasks/get, notifications/tasks). */
export function detailedTask(r: TaskRecord): Json {
  const out = modernTask(r);
  if (r.status === 'input_required') out.inputRequests = r.inputRequests ?? {};
  else if (r.status === 'completed' && r.result !== undefined) out.result = r.result;
  else if (r.status === 'failed' && r.error !== undefined) out.error = r.error;
  return out;
}

/** 2025-11-25 `Task`. */
export function legacyTask(r: TaskRecord): Json {
  const out = base(r);
  out.ttl = r.ttlMs;
  if (r.pollIntervalMs !== undefined) out.pollInterval = r.pollIntervalMs;
  return out;
}

/** The listen topic of one task's status notifications. */
export function topicOf(taskId: string): string {
  return `${EXTENSION_ID}#${taskId}`;
}
