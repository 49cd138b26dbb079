/**
 * Following a 2025-11-25 task (basic/utilities/tasks.mdx): `tasks/result` blocks until the
 * task ends and returns exactly what `tools/call` would have (§Result Retrieval), so it is
 * the one request the result comes from. While it waits, `tasks/get` is polled at the
 * task's `pollInterval` for the status (§Getting Tasks), and `notifications/tasks/status`
 * is taken when the server sends it. What the task asks for arrives as ordinary
 * `elicitation/create` / `sampling/createMessage` requests, answered by the client's
 * handlers like any other (§Input Required Status); progress keeps the token of the
 * original request (§Task Progress Notifications).
 */
import { McpError } from '../../protocol/errors.js';
import type { CallToolResult } from '../../protocol/types.js';
import type { CallOptions, Progress } from '../peer.js';
import { resultFor } from '../results.js';
import { cancelledByServer, getTask, pause, type TaskPort } from '../tasks/port.js';
import { snapshotOf, type TaskSnapshot } from '../tasks/snapshot.js';
import type { TaskDriver } from '../tasks/tool-task.js';

export class LegacyTaskDriver implements TaskDriver {
  private last: TaskSnapshot;

  constructor(
    private readonly port: TaskPort,
    first: TaskSnapshot,
    private readonly options: Pick<CallOptions, 'timeoutMs'>,
    /** The original request's progress token and listener, when it had them. */
    private readonly progress?: { token: string; onProgress: (p: Progress) => void },
  ) {
    this.last = first;
  }

  async get(signal?: AbortSignal): Promise<TaskSnapshot> {
    const { snapshot } = await getTask(this.port, this.last.taskId, this.options, signal);
    this.last = snapshot;
    return snapshot;
  }

  async follow(seen: (s: TaskSnapshot) => void, stop: AbortSignal): Promise<CallToolResult> {
    const { taskId } = this.last;
    const done = new AbortController();
    const signal = AbortSignal.any([stop, this.port.closed, done.signal]);
    const unlisten = this.port.onNotification((n) => {
      const params = n.params ?? {};
      if (n.method === 'notifications/tasks/status' && params.taskId === taskId) {
        try {
          seen((this.last = snapshotOf(params, 'notifications/tasks/status')));
        } catch {} // a malformed notification is not worth ending the task for; polling goes on
      } else if (n.method === 'notifications/progress' && this.progress && params.progressToken === this.progress.token) {
        const { progress, total, message } = params as { progress: number; total?: number; message?: string };
        this.progress.onProgress({ progress, ...(total === undefined ? {} : { total }), ...(message === undefined ? {} : { message }) });
      }
    });
    try {
      // tasks/result waits as long as the task runs: no per-request timeout; the polls have one.
      const result = this.port.request('tasks/result', { taskId }, { timeoutMs: 0, signal }).catch((e) => this.explain(e, signal));
      return resultFor('tools/call', await Promise.race([result, this.poll(seen, signal)]));
    } finally {
      done.abort();
      unlisten();
    }
  }

  async cancel(): Promise<TaskSnapshot | undefined> {
    const wire = await this.port.request('tasks/cancel', { taskId: this.last.taskId }, this.options);
    return snapshotOf(wire, 'tasks/cancel');
  }

  /** Polls until the task is over; only settles to fail (cancelled, expired, the server gone). */
  private async poll(seen: (s: TaskSnapshot) => void, signal: AbortSignal): Promise<never> {
    for (;;) {
      await pause(this.last.pollIntervalMs ?? this.port.defaultPollIntervalMs, signal);
      const s = await this.get(signal);
      seen(s);
      if (s.status === 'cancelled') throw cancelledByServer(s.taskId, s.statusMessage);
      // Completed or failed: tasks/result is answering; polling has nothing more to tell.
      if (s.status === 'completed' || s.status === 'failed') return new Promise<never>(() => {});
    }
  }

  /**
   * A JSON-RPC error from `tasks/result` is either the failed task's own error (§Result
   * Retrieval) or a word about the task (expired, cancelled): one `tasks/get` tells which.
   */
  private async explain(e: unknown, signal: AbortSignal): Promise<never> {
    if (!(e instanceof McpError)) throw e;
    const s = await this.get(signal);
    if (s.status === 'cancelled') throw cancelledByServer(s.taskId, s.statusMessage);
    throw e;
  }
}
