/** `ConnectOptions.tasks` with its defaults filled in. */
import type { ConnectOptions, TaskOptions } from '../options.js';

export interface TaskSettings {
  /** Call tools as tasks (2025-11-25) / declare the 2026 extension. */
  readonly call: boolean;
  /** Run the server's sampling/elicitation requests as tasks when asked (2025-11-25). */
  readonly receive: boolean;
  readonly pollIntervalMs: number;
  readonly maxTtlMs: number;
  readonly maxRunning: number;
}

/** Between polls when the server suggests no interval. */
export const DEFAULT_POLL_INTERVAL_MS = 1000;
/** The longest lifetime the client grants a task it runs (one hour). */
export const DEFAULT_RECEIVER_TTL_MS = 3_600_000;
export const DEFAULT_MAX_RECEIVED_TASKS = 16;

export function tasksSettings(options: ConnectOptions): TaskSettings {
  const t: TaskOptions = options.tasks === false ? { call: false, receive: false } : options.tasks === true ? {} : (options.tasks ?? {});
  return {
    call: t.call ?? true,
    receive: t.receive ?? true,
    pollIntervalMs: t.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    maxTtlMs: t.maxTtlMs ?? DEFAULT_RECEIVER_TTL_MS,
    maxRunning: t.maxRunning ?? DEFAULT_MAX_RECEIVED_TASKS,
  };
}
