/**
 * The 2026 design of tasks, the `io.modelcontextprotocol/tasks` extension (ext-tasks): the
 * server decides (a tool with task settings becomes a task whenever the request declares the
 * extension), `tasks/get` inlines the outcome, `tasks/update` answers the task's input
 * requests, `tasks/cancel` acknowledges, and status changes go out as `notifications/tasks` on
 * `subscriptions/listen` (`taskIds`), on every instance.
 */
import { ErrorCode, McpError } from '../../protocol/errors.js';
import { revision } from '../../protocol/revisions.js';
import type { ProtocolVersion } from '../../protocol/versions.js';
import type { ClientView } from '../../server/context.js';
import { clientDeclares, type ListenGrant, type Params } from '../../server/extension.js';
import { isObject } from '../../server/guards.js';
import { modernTaskChannel, ParkingAsker } from './askers.js';
import type { CallSite } from '../../server/call.js';
import type { TaskDesign, TaskReach } from './design.js';
import type { Running } from './running.js';
import { TERMINAL } from './store.js';
import { detailedTask, EXTENSION_ID, topicOf } from './wire.js';

const has = (v: ProtocolVersion): boolean => revision(v).era === 'modern';

/** The extension's capability error: what a request must declare for it (SEP-2575 §Missing Required Capabilities). */
function undeclared(message: string): McpError {
  return new McpError(ErrorCode.MissingRequiredClientCapability, message, { requiredCapabilities: { extensions: { [EXTENSION_ID]: {} } } });
}

export const MODERN_TASKS: TaskDesign = {
  name: 'extension',
  has,

  methods: (runner) => ({
    'tasks/get': {
      mcpName: 'taskId',
      revisions: has,
      needsClientExtension: true,
      run: async (params, _ctx, site) => detailedTask(await runner.find(params, site, MODERN_TASKS)),
    },
    'tasks/update': {
      mcpName: 'taskId',
      revisions: has,
      needsClientExtension: true,
      run: async (params, _ctx, site) => {
        const record = await runner.find(params, site, MODERN_TASKS);
        const responses = params.inputResponses;
        if (!isObject(responses))
          throw new McpError(ErrorCode.InvalidParams, 'tasks/update needs inputResponses, an object keyed by input request');
        if (TERMINAL.has(record.status)) return {};
        const answered = await runner.store.answer(record.taskId, responses);
        if (answered !== undefined && Object.keys(answered.taken).length > 0) {
          runner.announce(answered.record);
          await runner.toRunner(record.runner, { type: 'input', taskId: record.taskId, responses: answered.taken });
        }
        return {};
      },
    },
    'tasks/cancel': {
      mcpName: 'taskId',
      revisions: has,
      needsClientExtension: true,
      run: async (params, _ctx, site) => {
        const record = await runner.find(params, site, MODERN_TASKS);
        // An idempotent acknowledgement: a task already over stays as it is.
        if (TERMINAL.has(record.status)) return {};
        await runner.change(record.taskId, { status: 'cancelled', statusMessage: 'The task was cancelled by request.' });
        await runner.toRunner(record.runner, { type: 'cancel', taskId: record.taskId });
        return {};
      },
    },
  }),

  toolCall(runner, tool, options, ctx, params, run) {
    if (!clientDeclares(ctx.client, EXTENSION_ID)) {
      if (options.support !== 'required') return undefined;
      throw undeclared(`Tool ${tool.name} runs only as a task: declare the ${EXTENSION_ID} extension`);
    }
    if (options.support === 'forbidden') return undefined;
    if (options.start === 'handler') return runner.deferred(MODERN_TASKS, options, ctx, params, run);
    return runner.begin(MODERN_TASKS, options, ctx, params, run, undefined);
  },

  reach: parked,
  // The task's asks are parked in its record and answered by tasks/update on any instance: the same on a run again.
  reachAgain: parked,

  announce(runner, record) {
    runner.publish(topicOf(record.taskId), { jsonrpc: '2.0', method: 'notifications/tasks', params: detailedTask(record) });
  },
};

/** A 2026 task reaches its client through its record: its asks park there, its progress is its status message. */
function parked(_runner: unknown, running: Running, site: CallSite): TaskReach {
  return {
    asker: new ParkingAsker(running, site.client.capabilities),
    inbound: modernTaskChannel(running, site.inbound),
    // No progress notifications on tasks (ext-tasks §Task Status Notifications): a progress message is the status message.
    progress: (_p, _t, message) => {
      if (message !== undefined) running.setStatusMessage(message);
    },
  };
}

/** ext-tasks §Task Status Notifications: `taskIds` on `subscriptions/listen`, only for clients that declare the extension. */
export function listenForTasks(asked: Params, client: ClientView): ListenGrant | undefined {
  const ids = asked.taskIds;
  if (ids === undefined) return undefined;
  if (!clientDeclares(client, EXTENSION_ID)) throw undeclared('Task status notifications need the client to declare the tasks extension');
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) {
    throw new McpError(ErrorCode.InvalidParams, 'notifications.taskIds must be an array of task ids');
  }
  const unique = [...new Set(ids as string[])];
  return { acknowledged: { taskIds: unique }, topics: unique.map(topicOf) };
}
