/**
 * The tasks extension, both designs behind one handler API (docs/extensions.md §Tasks): the
 * 2026 `io.modelcontextprotocol/tasks` extension (modern.ts) and, where the build has the
 * handshake era, 2025-11-25's experimental core tasks (legacy/core.ts, registered by eras.ts).
 * A tool opts in with task settings (`task(...)`); its handler is written once; the task runner
 * (runner.ts) keeps the records and runs it, whichever design the request's revision has.
 */
import type { ServerCapabilities, Tool } from '../../protocol/types.js';
import type { ProtocolVersion } from '../../protocol/versions.js';
import type { Call } from '../../server/call.js';
import type { ClientView, RequestContext } from '../../server/context.js';
import type { ExtensionHost, ExtensionMethod, ListenGrant, Params, ServerExtension } from '../../server/extension.js';
import type { ToolEntry } from '../../server/features/tools.js';
import type { TaskDesign } from './design.js';
import { CORE_TASKS } from './eras.js';
import { listenForTasks, MODERN_TASKS } from './modern.js';
import { TaskRunner, type TasksOptions } from './runner.js';
import { readSettings, taskOptionsOf, type ToolTaskOptions } from './settings.js';
import type { TaskStore } from './store.js';
import { EXTENSION_ID } from './wire.js';

export type { TasksOptions };

/** One method of several designs: served in each one's revisions by that design. */
function merged(name: string, byDesign: readonly ExtensionMethod[]): ExtensionMethod {
  if (byDesign.length === 1) return byDesign[0]!;
  const serving = (v: ProtocolVersion) => byDesign.find((m) => m.revisions(v));
  return {
    revisions: (v) => serving(v) !== undefined,
    mcpName: byDesign.find((m) => m.mcpName !== undefined)?.mcpName,
    // Read on the stateless wire only, where a design that needs the declaration serves it.
    needsClientExtension: byDesign.some((m) => m.needsClientExtension),
    run: (params, ctx, site) => {
      const method = serving(site.protocolVersion);
      if (method === undefined) throw new Error(`${name}: no design of tasks serves ${site.protocolVersion}`);
      return method.run(params, ctx, site);
    },
  };
}

/**
 * The tasks extension ({@link tasks} makes one): serves the tools marked with {@link task} as
 * tasks, in the design of the request's revision (the 2026 `io.modelcontextprotocol/tasks`
 * extension, or 2025-11-25's experimental core tasks), and the methods that poll, answer and
 * cancel them.
 */
export class TasksExtension implements ServerExtension {
  readonly id = EXTENSION_ID;
  readonly methods: Readonly<Record<string, ExtensionMethod>>;
  private readonly designs: readonly TaskDesign[];
  private readonly runner: TaskRunner;
  /** Each tool's task options, read from its settings once. */
  private readonly toolOptions = new WeakMap<object, ToolTaskOptions>();

  constructor(options: TasksOptions = {}) {
    this.designs = CORE_TASKS === undefined ? [MODERN_TASKS] : [MODERN_TASKS, CORE_TASKS];
    this.runner = new TaskRunner(options, new Map(this.designs.map((d) => [d.name, d])));
    const byName = new Map<string, ExtensionMethod[]>();
    for (const design of this.designs) {
      for (const [name, method] of Object.entries(design.methods(this.runner))) byName.set(name, [...(byName.get(name) ?? []), method]);
    }
    this.methods = Object.fromEntries([...byName].map(([name, methods]) => [name, merged(name, methods)]));
  }

  /** Where its task records live: the option's store, the cluster's, or one of this process. */
  get store(): TaskStore {
    return this.runner.store;
  }

  install(host: ExtensionHost): void {
    this.runner.install(host);
  }

  close(): void {
    this.runner.close();
  }

  settings(): Record<string, unknown> {
    return {};
  }

  capabilities(v: ProtocolVersion, caps: ServerCapabilities): void {
    for (const design of this.designs) design.capabilities?.(v, caps);
  }

  /** A tool's settings for this extension, checked at registration; 2025-11-25 advertises the support as `execution.taskSupport`. */
  toolSettings(name: string, settings: unknown): Partial<Tool> | undefined {
    const options = readSettings(`tool "${name}"`, settings);
    return options.support === 'forbidden' ? undefined : { execution: { taskSupport: options.support } };
  }

  listen(asked: Params, client: ClientView): ListenGrant | undefined {
    return listenForTasks(asked, client);
  }

  /** Runs a call as a task when the tool supports it and the client can take one; else declines or refuses. */
  readonly toolCall = (tool: ToolEntry, ctx: Call, params: Params, run: (ctx: RequestContext) => Promise<object>) => {
    const design = this.designs.find((d) => d.has(ctx.protocolVersion));
    // A revision with no design of tasks (before 2025-11-25): a plain call.
    return design?.toolCall(this.runner, tool, this.optionsOf(tool), ctx, params, run);
  };

  private optionsOf(tool: ToolEntry): ToolTaskOptions {
    let options = this.toolOptions.get(tool.config);
    if (options === undefined) this.toolOptions.set(tool.config, (options = taskOptionsOf(tool.config.extensions)));
    return options;
  }
}
