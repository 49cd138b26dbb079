/**
 * A task as the client sees it, whichever design made it: 2025-11-25 core tasks
 * (basic/utilities/tasks.mdx §Task: `ttl`, `pollInterval`) or the 2026 extension
 * (ext-tasks §Tasks: `ttlMs`, `pollIntervalMs`, a `DetailedTask` with what its status carries).
 */
import { JanusError } from '../../protocol/errors.js';

/** basic/utilities/tasks.mdx §Task Status; the same five in the 2026 extension. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

const STATUSES: ReadonlySet<string> = new Set(['working', 'input_required', 'completed', 'failed', 'cancelled']);
const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

/** The last state of a task the client saw, with the durations in milliseconds in both designs. */
export interface TaskSnapshot {
  /** The task's id. */
  readonly taskId: string;
  /** Where the task is: `working`, `input_required`, or ended (`completed`, `failed`, `cancelled`). */
  readonly status: TaskStatus;
  /** What the task is doing, as the server says. */
  readonly statusMessage?: string;
  /** ISO 8601. */
  readonly createdAt: string;
  /** When it last changed (ISO 8601). */
  readonly lastUpdatedAt: string;
  /** From creation; null for unlimited. */
  readonly ttlMs: number | null;
  /** What the server suggests between polls. */
  readonly pollIntervalMs?: number;
}

export function isTerminal(status: TaskStatus): boolean {
  return TERMINAL.has(status);
}

type Json = Record<string, unknown>;

/**
 * Reads a task from either design's wire shape. The fields that steer the client (id, status)
 * are checked; a server that sends something else has sent an invalid response.
 */
export function snapshotOf(wire: Json, what: string): TaskSnapshot {
  const { taskId, status } = wire;
  if (typeof taskId !== 'string' || taskId === '' || typeof status !== 'string' || !STATUSES.has(status)) {
    throw new JanusError('PROTOCOL', `${what}: not a task (taskId ${JSON.stringify(taskId)}, status ${JSON.stringify(status)})`);
  }
  const ttl = wire.ttlMs !== undefined ? wire.ttlMs : wire.ttl;
  const poll = wire.pollIntervalMs !== undefined ? wire.pollIntervalMs : wire.pollInterval;
  const out: { -readonly [K in keyof TaskSnapshot]: TaskSnapshot[K] } = {
    taskId,
    status: status as TaskStatus,
    createdAt: String(wire.createdAt ?? ''),
    lastUpdatedAt: String(wire.lastUpdatedAt ?? ''),
    ttlMs: typeof ttl === 'number' ? ttl : null,
  };
  if (typeof wire.statusMessage === 'string') out.statusMessage = wire.statusMessage;
  if (typeof poll === 'number' && poll >= 0) out.pollIntervalMs = poll;
  return out;
}

/** Whether two snapshots differ in what a watcher cares about (status or its message). */
export function changed(a: TaskSnapshot | undefined, b: TaskSnapshot): boolean {
  return a === undefined || a.status !== b.status || a.statusMessage !== b.statusMessage;
}
