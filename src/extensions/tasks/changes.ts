/**
 * Waiting for a task to change (2025-11-25 `tasks/result` blocks until the task ends): woken at
 * once by a change made here, and after the task's poll interval otherwise, since a change made
 * on another instance of a cluster is only seen by reading the store again.
 */
import type { TaskRecord } from './store.js';

export class TaskChanges {
  private readonly waiters = new Map<string, Set<() => void>>();

  /** Resolves at the task's next change here, or after its poll interval; rejects when `signal` aborts. */
  next(record: TaskRecord, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const taskId = record.taskId;
      let waiters = this.waiters.get(taskId);
      if (waiters === undefined) this.waiters.set(taskId, (waiters = new Set()));
      const set = waiters;
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0) this.waiters.delete(taskId);
        signal?.removeEventListener('abort', aborted);
        resolve();
      };
      const aborted = () => {
        done();
        reject(signal?.reason);
      };
      const timer = setTimeout(done, record.pollIntervalMs ?? 1000);
      set.add(done);
      signal?.addEventListener('abort', aborted, { once: true });
    });
  }

  /** The task changed here: every waiter reads it again. */
  changed(taskId: string): void {
    for (const wake of [...(this.waiters.get(taskId) ?? [])]) wake();
  }
}
