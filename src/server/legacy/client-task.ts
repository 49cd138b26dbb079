/**
 * A request to the client run as a task on the client (2025-11-25 basic/utilities/tasks.mdx:
 * the server is the requestor of a task-augmented `sampling/createMessage` or
 * `elicitation/create`). The client answers `{ task }` at once; the server polls `tasks/get`
 * at the client's interval and takes the outcome from `tasks/result`, and cancels the task
 * when the asking handler gives up.
 */
import { JanusError } from '../../protocol/errors.js';
import type { Inbound } from '../transport-seam.js';
import type { Session } from './session.js';

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** Does the client run `method` as a task (`capabilities.tasks.requests`, 2025-11-25 §Client Capabilities)? */
export function clientRunsAsTask(session: Session, method: string): boolean {
  const requests = (session.clientCapabilities.tasks as { requests?: Record<string, Record<string, unknown> | undefined> } | undefined)
    ?.requests;
  if (requests === undefined) return false;
  if (method === 'sampling/createMessage') return typeof requests.sampling?.createMessage === 'object';
  if (method === 'elicitation/create') return typeof requests.elicitation?.create === 'object';
  return false;
}

/** Sends `method` as a task and resolves with its outcome (the result `tasks/result` gives, or its error). */
export async function requestAsTask(
  session: Session,
  method: string,
  params: Record<string, unknown>,
  ttlMs: number | undefined,
  via: Inbound | undefined,
  signal: AbortSignal | undefined,
  timeoutMs: number | undefined,
): Promise<Record<string, unknown>> {
  const created = await session.request(method, { ...params, task: ttlMs === undefined ? {} : { ttl: ttlMs } }, via, signal, timeoutMs);
  const task = created.task as { taskId?: unknown; pollInterval?: unknown } | undefined;
  const taskId = task?.taskId;
  if (typeof taskId !== 'string') throw new JanusError('PROTOCOL', `the client answered the ${method} task without a task id`);
  try {
    let interval = typeof task?.pollInterval === 'number' ? task.pollInterval : 1000;
    for (;;) {
      const state = await session.request('tasks/get', { taskId }, via, signal, timeoutMs);
      if (typeof state.status === 'string' && TERMINAL.has(state.status)) break;
      if (typeof state.pollInterval === 'number') interval = state.pollInterval;
      await sleep(Math.min(Math.max(interval, 10), 60_000), signal);
    }
    const outcome = await session.request('tasks/result', { taskId }, via, signal, timeoutMs);
    const { _meta, ...result } = outcome;
    return _meta === undefined ? result : { ...result, _meta };
  } catch (e) {
    // Given up here (the handler's request was cancelled, a poll timed out): the client's task is cancelled too.
    if (signal?.aborted || e instanceof JanusError)
      session.request('tasks/cancel', { taskId }, via, undefined, timeoutMs).catch(() => undefined);
    throw e;
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
