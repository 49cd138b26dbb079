/**
 * Calling tools as tasks, in either design, behind one API: `callTool` keeps its contract
 * (the final CallToolResult) and follows a task when the server makes one; `startTool` hands
 * the task over as a `ToolTask`.
 *
 * 2026-07-28 (ext-tasks §Capability Negotiation): the client declares the extension in the
 * request's capabilities and the server alone decides whether to answer with a task
 * (`resultType: "task"`). 2025-11-25 (basic/utilities/tasks.mdx §Tool-Level Negotiation):
 * the client decides, and only where the server declares `tasks.requests.tools.call` and the
 * tool's `execution.taskSupport` allows it; a `required` tool is always called as a task.
 */
import { JanusError } from '../../protocol/errors.js';
import type { CallToolResult, ServerCapabilities, Tool } from '../../protocol/types.js';
import type { Era } from '../../protocol/versions.js';
import type { CallOptions } from '../peer.js';
import { resultFor } from '../results.js';
import { HANDSHAKE_CLIENT } from '../eras.js';
import type { HandshakeTasks } from '../handshake-party.js';
import { ModernTaskDriver } from './modern-driver.js';
import { unknownTask, type TaskPort } from './port.js';
import { snapshotOf, type TaskSnapshot } from './snapshot.js';
import { ToolTask } from './tool-task.js';

/** `callTool` / `startTool` options: a call's, and how tasks are used for it. */
export interface ToolCallOptions extends CallOptions {
  /**
   * 2025-11-25: `true` calls the tool as a task wherever the server and the tool allow it;
   * by default `callTool` does so only for tools that require it and `startTool` wherever
   * allowed. `false`: never (2026-07-28: the extension is not declared for this call, so the
   * server may not make a task). A tool that does not allow tasks is always called plainly.
   */
  task?: boolean;
  /** 2025-11-25: the task lifetime to ask for (`task.ttl`); the server has the last word. */
  ttlMs?: number;
  /** Each change of the task's status (or status message) while it is followed. */
  onStatus?: (task: TaskSnapshot) => void;
}

/** The pieces of the client the tool calls need beyond the task port. */
export interface ToolCallHost extends TaskPort {
  era(): Era;
  serverCapabilities(): ServerCapabilities;
  /** Every tool (tools/list, following cursors): their `execution.taskSupport` is learnt from it. */
  listAllTools(): Promise<Tool[]>;
  /** ConnectOptions.tasks allows calling as a task. */
  readonly callAsTasks: boolean;
}

/** Set on a modern call's options: do not declare the tasks extension (modern/exchange.ts). */
export interface TaskDeclaration {
  withoutTasks?: boolean;
}

/** Set on a call's options: the progress token to use (peer.ts), so it outlives the request. */
export interface OwnProgressToken {
  progressToken?: string;
}

type Support = NonNullable<Tool['execution']>['taskSupport'];

let tokens = 0;

export class ToolCalls {
  /** 2025-11-25: each tool's `execution.taskSupport`, from the last tools/list that listed it. */
  private readonly support = new Map<string, Support | 'forbidden'>();
  private listed: Promise<unknown> | undefined;

  constructor(private readonly host: ToolCallHost) {}

  /** Takes note of the tools a tools/list returned. */
  learn(tools: readonly Tool[]): void {
    for (const t of tools) this.support.set(t.name, t.execution?.taskSupport ?? 'forbidden');
  }

  /** A tools/list_changed notification: what was learnt may be stale. */
  forget(): void {
    this.support.clear();
    this.listed = undefined;
  }

  async call(name: string, args: Record<string, unknown>, options: ToolCallOptions): Promise<CallToolResult> {
    return (await this.start(name, args, options, 'call')).result();
  }

  async start(name: string, args: Record<string, unknown>, options: ToolCallOptions, use: 'call' | 'start'): Promise<ToolTask> {
    const { onStatus, task: _t, ttlMs: _ttl, ...call } = options;
    if (options.signal?.aborted) throw new JanusError('ABORTED', 'tools/call cancelled', { cause: options.signal.reason });
    const params: Record<string, unknown> = { name, arguments: args };
    const perRequest = { timeoutMs: options.timeoutMs };
    let handle: ToolTask;
    if (this.host.era() === 'modern') {
      const declare: TaskDeclaration = { withoutTasks: !this.host.callAsTasks || options.task === false };
      const result = await this.host.request('tools/call', params, { ...call, ...declare });
      if (result.resultType !== 'task') return new ToolTask(name, { result: resultFor('tools/call', result) });
      const first = snapshotOf(result, 'tools/call');
      handle = new ToolTask(name, { snapshot: first, driver: new ModernTaskDriver(this.host, first, perRequest) }, onStatus);
    } else {
      if (!(await this.asTask(name, options.task, use))) {
        return new ToolTask(name, { result: resultFor('tools/call', await this.host.request('tools/call', params, call)) });
      }
      params.task = options.ttlMs === undefined ? {} : { ttl: options.ttlMs };
      // basic/utilities/tasks.mdx §Task Progress Notifications: the token stays valid for the task's life.
      const own: OwnProgressToken = options.onProgress ? { progressToken: `task-progress-${++tokens}` } : {};
      // The receiver answers a task-augmented request at once (§Result Retrieval); the signal waits for
      // that answer, so that a task made while the caller aborted is cancelled, not left running.
      const { signal: _s, ...untilTask } = call;
      const result = await this.host.request('tools/call', params, { ...untilTask, ...own });
      // §Task Support and Handling: a receiver that does not do tasks answers normally.
      const wire = result.task;
      if (typeof wire !== 'object' || wire === null) return new ToolTask(name, { result: resultFor('tools/call', result) });
      const first = snapshotOf(wire as Record<string, unknown>, 'tools/call');
      const progress = own.progressToken && options.onProgress ? { token: own.progressToken, onProgress: options.onProgress } : undefined;
      handle = new ToolTask(name, { snapshot: first, driver: legacyDriver().driver(this.host, first, perRequest, progress) }, onStatus);
    }
    return this.cancelledBy(handle, options.signal);
  }

  /** From now on the caller's signal cancels the task (ext-tasks §Task Cancellation: not notifications/cancelled). */
  private cancelledBy(handle: ToolTask, signal: AbortSignal | undefined): ToolTask {
    if (signal) {
      const onAbort = () => void handle.cancel(`the caller aborted (${String(signal.reason)})`).catch(() => {});
      if (signal.aborted) onAbort();
      else {
        signal.addEventListener('abort', onAbort, { once: true });
        handle.result().then(
          () => signal.removeEventListener('abort', onAbort),
          () => signal.removeEventListener('abort', onAbort),
        );
      }
    }
    return handle;
  }

  /**
   * Re-attaches to a task made earlier (its id kept, say, across a restart: ext-tasks §Task
   * Polling), after one `tasks/get`. In 2025-11-25 the result comes from `tasks/result`.
   */
  async resume(taskId: string, options: Omit<ToolCallOptions, 'task' | 'ttlMs'>): Promise<ToolTask> {
    const perRequest = { timeoutMs: options.timeoutMs };
    const wire = await this.host.request('tasks/get', { taskId }, { ...perRequest, signal: options.signal }).catch((e) => {
      throw unknownTask(taskId, e);
    });
    const first = snapshotOf(wire, 'tasks/get');
    const driver =
      this.host.era() === 'modern'
        ? new ModernTaskDriver(this.host, first, perRequest)
        : legacyDriver().driver(this.host, first, perRequest);
    return this.cancelledBy(new ToolTask(undefined, { snapshot: first, driver }, options.onStatus), options.signal);
  }

  /** 2025-11-25 §Tool-Level Negotiation. */
  private async asTask(name: string, wanted: boolean | undefined, use: 'call' | 'start'): Promise<boolean> {
    if (!this.host.callAsTasks || wanted === false) return false;
    const tasks = this.host.serverCapabilities().tasks as { requests?: { tools?: { call?: unknown } } } | undefined;
    if (!tasks?.requests?.tools?.call) return false;
    if (!this.support.has(name)) {
      this.listed ??= this.host.listAllTools().catch(() => undefined);
      await this.listed;
    }
    const support = this.support.get(name);
    return support === 'required' || (support === 'optional' && (wanted === true || use === 'start'));
  }
}

/** The handshake era's task design: there whenever a connection is of that era. */
function legacyDriver(): HandshakeTasks {
  if (HANDSHAKE_CLIENT === undefined) throw new JanusError('PROTOCOL', 'this build of janus-mcp has no handshake era');
  return HANDSHAKE_CLIENT.tasks;
}
