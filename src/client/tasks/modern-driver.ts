/**
 * Following a 2026 extension task (ext-tasks): poll `tasks/get` at the interval the server
 * suggests (§Task Polling); answer each `inputRequests` key once with the client's handlers
 * and send the answers with `tasks/update` (§Task Update Requests: keys are unique over the
 * task's life, so a key seen again on a later poll is not asked again); the terminal
 * `DetailedTask` carries the result or the error. `tasks/cancel` is acknowledged with an
 * empty result, after which the client may forget the task (§Task Cancellation).
 */
import { JanusError, McpError } from '../../protocol/errors.js';
import type { CallToolResult, InputRequest } from '../../protocol/types.js';
import type { CallOptions } from '../peer.js';
import { resultFor } from '../results.js';
import { cancelledByServer, getTask, pause, type TaskPort } from './port.js';
import type { TaskSnapshot } from './snapshot.js';
import type { TaskDriver } from './tool-task.js';

type Json = Record<string, unknown>;

export class ModernTaskDriver implements TaskDriver {
  /** Keys answered (or being answered): never asked twice. */
  private readonly answered = new Set<string>();
  private last: TaskSnapshot;

  constructor(
    private readonly port: TaskPort,
    first: TaskSnapshot,
    /** Per request: the caller's timeoutMs. */
    private readonly options: Pick<CallOptions, 'timeoutMs'>,
  ) {
    this.last = first;
  }

  async get(signal?: AbortSignal): Promise<TaskSnapshot> {
    return (await this.detailed(signal)).snapshot;
  }

  async follow(seen: (s: TaskSnapshot) => void, stop: AbortSignal): Promise<CallToolResult> {
    const signal = AbortSignal.any([stop, this.port.closed]);
    for (;;) {
      await pause(this.last.pollIntervalMs ?? this.port.defaultPollIntervalMs, signal);
      const { snapshot, wire } = await this.detailed(signal);
      seen(snapshot);
      switch (snapshot.status) {
        case 'completed':
          if (typeof wire.result !== 'object' || wire.result === null)
            throw new JanusError('PROTOCOL', `task ${snapshot.taskId}: completed without a result`);
          return resultFor('tools/call', wire.result as Json);
        case 'failed':
          throw failure(snapshot, wire.error);
        case 'cancelled':
          throw cancelledByServer(snapshot.taskId, snapshot.statusMessage);
        case 'input_required':
          await this.answer(snapshot.taskId, wire.inputRequests, signal);
      }
    }
  }

  async cancel(): Promise<TaskSnapshot | undefined> {
    await this.port.request('tasks/cancel', { taskId: this.last.taskId }, this.options);
    return undefined;
  }

  private async detailed(signal: AbortSignal | undefined): Promise<{ snapshot: TaskSnapshot; wire: Json }> {
    const got = await getTask(this.port, this.last.taskId, this.options, signal);
    this.last = got.snapshot;
    return got;
  }

  /** The keys not answered before, each by its handler, all in one `tasks/update`. */
  private async answer(taskId: string, requests: unknown, signal: AbortSignal): Promise<void> {
    if (typeof requests !== 'object' || requests === null) return;
    const fresh = Object.entries(requests as Record<string, InputRequest>).filter(([key]) => !this.answered.has(key));
    if (fresh.length === 0) return;
    if (fresh.length > this.port.maxInputRequests) {
      throw new JanusError(
        'PROTOCOL',
        `task ${taskId} asks for ${fresh.length} inputs at once; this client answers at most ${this.port.maxInputRequests} (maxInputRequests in the connect options). No handler was called.`,
      );
    }
    for (const [key] of fresh) this.answered.add(key);
    const answers = await Promise.all(fresh.map(([, r]) => this.port.answer(r.method, r.params ?? {}, signal)));
    const inputResponses = Object.fromEntries(fresh.map(([key], i) => [key, answers[i]]));
    await this.port.request('tasks/update', { taskId, inputResponses }, { ...this.options, signal });
  }
}

/** A failed task: its JSON-RPC error, as an McpError (ext-tasks §Task Execution Errors). */
export function failure(s: TaskSnapshot, error: unknown): McpError {
  if (typeof error === 'object' && error !== null && typeof (error as Json).code === 'number') {
    const e = error as { code: number; message?: unknown; data?: unknown };
    return new McpError(e.code, typeof e.message === 'string' ? e.message : `task ${s.taskId} failed`, e.data);
  }
  return new McpError(-32603, `task ${s.taskId} failed${s.statusMessage ? `: ${s.statusMessage}` : ''}`);
}
