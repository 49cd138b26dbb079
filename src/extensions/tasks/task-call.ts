/**
 * The context a task's handler runs with. It is the request's context until the task
 * exists, and the task's after: a tool whose task starts in its handler (`start: 'handler'`)
 * asks in the request first (an input_required round on 2026-07-28), then `startTask(ctx)`
 * switches it to the task's asker, cancellation and channel. The handler holds this one object
 * throughout, so the switch is invisible to it; its `signal` follows whichever phase is current.
 */
import type { Call } from '../../server/call.js';
import type {
  AskOptions,
  AuthInfo,
  ClientView,
  ElicitAnswer,
  ElicitFormRequest,
  ElicitUrlRequest,
  RequestContext,
  SessionHandle,
} from '../../server/context.js';
import type { TaskHandle } from './settings.js';
import type { JsonSchemaObject, Parsed, StandardSchema } from '../../server/schema/types.js';
import type { RequestId } from '../../protocol/jsonrpc.js';
import type { CreateMessageParams, CreateMessageResult, ElicitResult, LoggingLevel, Meta, Root } from '../../protocol/types.js';
import type { Era, ProtocolVersion } from '../../protocol/versions.js';

/** What the extension does when a handler calls `startTask()` in the request phase. */
export type TaskStarter = () => Promise<TaskPhase>;

/** The task's side of the switch. */
export interface TaskPhase {
  readonly call: Call;
  readonly handle: TaskHandle;
  /** Read only once the handler reads `ctx.signal` (it may be a getter that makes the AbortController). */
  readonly signal: AbortSignal;
  /** Where progress goes instead of the call's notifications (2026: the status message). */
  readonly progress?: (progress: number, total: number | undefined, message: string | undefined) => void;
}

export class TaskCall implements RequestContext {
  private current: RequestContext;
  private handle: TaskHandle | undefined;
  private starting: Promise<void> | undefined;
  /**
   * Made when the request phase begins, or, for a task that began at the call, when the handler
   * first reads `signal`: most never do, and an AbortController (with the task's own, which
   * following it makes) is a few microseconds per task on Node 20.
   */
  private controller: AbortController | undefined;
  /** A task that began at the call, whose signal `signal` follows once read. */
  private unread: TaskPhase | undefined;
  private unlink: (() => void) | undefined;
  private progressSink: TaskPhase['progress'];

  constructor(
    private readonly request: Call,
    /** Set for a task that starts in its handler; undefined once started or when it began at the call. */
    private starter: TaskStarter | undefined,
    task?: TaskPhase,
  ) {
    this.current = request;
    if (task !== undefined) this.switchTo(task);
    else this.follow((this.controller = new AbortController()), request.signal);
  }

  /** Whether the task exists (the handler now runs as it). */
  get started(): boolean {
    return this.handle !== undefined;
  }

  /** Switches to the task's context: its asks, progress and logs go the task's way from now on. */
  private switchTo(task: TaskPhase): void {
    this.current = task.call;
    this.handle = task.handle;
    this.progressSink = task.progress;
    this.starter = undefined;
    if (this.controller === undefined) this.unread = task;
    else this.follow(this.controller, task.signal);
  }

  private follow(controller: AbortController, signal: AbortSignal): void {
    this.unlink?.();
    this.unlink = undefined;
    if (controller.signal.aborted) return;
    if (signal.aborted) {
      controller.abort(signal.reason);
      return;
    }
    const onAbort = () => controller.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    this.unlink = () => signal.removeEventListener('abort', onAbort);
  }

  get task(): TaskHandle | undefined {
    return this.handle;
  }

  startTask(): Promise<void> {
    const starter = this.starter;
    if (starter === undefined) return Promise.resolve();
    return (this.starting ??= starter().then((task) => this.switchTo(task)));
  }

  get signal(): AbortSignal {
    let controller = this.controller;
    if (controller === undefined) {
      controller = this.controller = new AbortController();
      const task = this.unread;
      this.unread = undefined;
      if (task !== undefined) this.follow(controller, task.signal);
    }
    return controller.signal;
  }
  get requestId(): RequestId {
    return this.request.requestId;
  }
  get era(): Era {
    return this.request.era;
  }
  get protocolVersion(): ProtocolVersion {
    return this.request.protocolVersion;
  }
  get client(): ClientView {
    return this.request.client;
  }
  get meta(): Meta | undefined {
    return this.request.meta;
  }
  get sessionId(): string | undefined {
    return this.request.sessionId;
  }
  get session(): SessionHandle | undefined {
    return this.request.session;
  }
  get state(): Record<string, unknown> {
    return this.request.state;
  }
  get auth(): AuthInfo | undefined {
    return this.request.auth;
  }

  progress(progress: number, total?: number, message?: string): void {
    if (this.progressSink !== undefined) this.progressSink(progress, total, message);
    else this.current.progress(progress, total, message);
  }
  log(level: LoggingLevel, data: unknown, logger?: string): void {
    this.current.log(level, data, logger);
  }
  elicit<S extends StandardSchema>(request: ElicitFormRequest<S>, options?: AskOptions): Promise<ElicitAnswer<Parsed<S>>>;
  elicit(request: ElicitFormRequest, options?: AskOptions): Promise<ElicitResult>;
  elicit(
    request: ElicitFormRequest<StandardSchema | JsonSchemaObject>,
    options?: AskOptions,
  ): Promise<ElicitResult | ElicitAnswer<unknown>> {
    return this.current.elicit(request as ElicitFormRequest, options);
  }
  elicitUrl(request: ElicitUrlRequest, options?: AskOptions): Promise<ElicitResult> {
    return this.current.elicitUrl(request, options);
  }
  sample(request: CreateMessageParams, options?: AskOptions): Promise<CreateMessageResult> {
    return this.current.sample(request, options);
  }
  roots(options?: AskOptions): Promise<Root[]> {
    return this.current.roots(options);
  }
  closeStream(): void {
    this.current.closeStream();
  }
}
