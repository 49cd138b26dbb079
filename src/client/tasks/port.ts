/**
 * What the task drivers need from the client: to send requests (through the middleware and
 * the era in use), to answer the server with the client's own handlers, to hear
 * notifications, and the client's lifetime.
 */
import { ErrorCode, JanusError, McpError } from '../../protocol/errors.js';
import type { JsonRpcNotification } from '../../protocol/jsonrpc.js';
import type { CallOptions } from '../peer.js';
import type { ServerRequestResult } from '../server-requests.js';
import { snapshotOf, type TaskSnapshot } from './snapshot.js';

export interface TaskPort {
  request(method: string, params: Record<string, unknown>, options?: CallOptions): Promise<Record<string, unknown>>;
  /** Answers one request of the server (an `inputRequests` entry) with onElicit/onSample/onRoots. */
  answer(method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<ServerRequestResult>;
  onNotification(listener: (n: JsonRpcNotification) => void): () => void;
  /** Aborts when the client closes. */
  readonly closed: AbortSignal;
  /** Between polls when the server suggests no interval. */
  readonly defaultPollIntervalMs: number;
  /** Most `inputRequests` answered from one poll (ConnectOptions.maxInputRequests). */
  readonly maxInputRequests: number;
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * -32602 on `tasks/get` means the task is unknown: never made, or expired and purged
 * (basic/utilities/tasks.mdx and ext-tasks §Protocol Errors). Said plainly, code kept.
 */
export function unknownTask(taskId: string, e: unknown): unknown {
  if (!(e instanceof McpError) || e.code !== ErrorCode.InvalidParams) return e;
  return new McpError(
    e.code,
    `task ${taskId} is unknown to the server: it expired (its ttl elapsed) or never existed (${e.message})`,
    e.data,
  );
}

/**
 * One `tasks/get`, in either task design: the task's snapshot and the wire result it came
 * from, refused when the answer is about another task and said plainly when it is unknown.
 */
export async function getTask(
  port: TaskPort,
  taskId: string,
  options: CallOptions,
  signal: AbortSignal | undefined,
): Promise<{ snapshot: TaskSnapshot; wire: Record<string, unknown> }> {
  let wire: Record<string, unknown>;
  try {
    wire = await port.request('tasks/get', { taskId }, { ...options, signal });
  } catch (e) {
    throw unknownTask(taskId, e);
  }
  const snapshot = snapshotOf(wire, 'tasks/get');
  if (snapshot.taskId !== taskId) throw new JanusError('PROTOCOL', `tasks/get for ${taskId} answered about ${snapshot.taskId}`);
  return { snapshot, wire };
}

/** A task the server reports as cancelled (by someone else, or on its own). */
export function cancelledByServer(taskId: string, statusMessage: string | undefined): JanusError {
  return new JanusError('ABORTED', `task ${taskId} was cancelled on the server${statusMessage ? `: ${statusMessage}` : ''}`);
}
