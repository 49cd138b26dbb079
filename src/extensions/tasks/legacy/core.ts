/**
 * The 2025-11-25 design of tasks, the experimental core tasks (basic/utilities/tasks.mdx): the
 * client asks for a task with `params.task`, polls `tasks/get`, blocks on `tasks/result` (which
 * answers what the request itself would have), lists and cancels; the `tasks` capability
 * declares them. A task belongs to its handshake-era session: its requests to the client and
 * its status notifications go there, and it is cancelled when the session ends.
 */
import { ErrorCode, McpError } from '../../../protocol/errors.js';
import { revision } from '../../../protocol/revisions.js';
import type { ProtocolVersion } from '../../../protocol/versions.js';
import type { SiteSession } from '../../../server/call.js';
import { verbatim, type CallSite, type Params } from '../../../server/extension.js';
import { isObject } from '../../../server/guards.js';
import { extend } from '../../../protocol/extend.js';
import { modernTaskChannel, ParkingAsker } from '../askers.js';
import type { TaskDesign } from '../design.js';
import { ownerOf } from '../records.js';
import type { Running } from '../running.js';
import type { TaskRunner } from '../design.js';
import { TERMINAL } from '../store.js';
import { legacyTask, RELATED_TASK } from '../wire.js';
import { SessionTaskAsker, sessionTaskChannel } from './session-askers.js';

/** Does revision `v` have 2025-11-25's core tasks? */
const has = (v: ProtocolVersion): boolean => revision(v).experimental.clientRequests.has('tasks/get');

/** The tasks each session runs here, cancelled when the session ends (one close hook per session). */
const bySession = new WeakMap<SiteSession, Set<Running>>();

/**
 * A task belongs to its session (its owner when nobody authenticated): once the session has
 * ended nobody can reach it, so it is cancelled rather than left to run out its lifetime. A
 * session an instance only lets go of (cluster) lives on elsewhere: its tasks too.
 */
function tieToSession(runner: TaskRunner, session: SiteSession, running: Running): void {
  let set = bySession.get(session);
  if (set === undefined) {
    const tasks = (set = new Set());
    bySession.set(session, tasks);
    session.onClosed(() => {
      if (session.released) return;
      for (const r of [...tasks]) {
        runner.change(r.taskId, { status: 'cancelled', statusMessage: 'The session ended.' }).catch(() => undefined);
        r.abort(new McpError(ErrorCode.InvalidRequest, 'The session ended.'));
      }
    });
  }
  set.add(running);
}

/** `tasks/result`: blocks until the task is terminal, then what the request itself would have answered. */
async function result(runner: TaskRunner, params: Params, site: CallSite): Promise<object> {
  let record = await runner.find(params, site, CORE_TASKS);
  const running = runner.runningTask(record.taskId);
  const release = running?.holdResultStream(site.inbound);
  try {
    while (!TERMINAL.has(record.status)) {
      await runner.changes.next(record, site.inbound.signal);
      record = await runner.find(params, site, CORE_TASKS);
    }
  } finally {
    release?.();
  }
  if (record.status === 'failed') {
    const e = record.error ?? { code: ErrorCode.InternalError, message: 'Internal error' };
    throw new McpError(e.code, e.message, e.data);
  }
  if (record.status === 'cancelled') throw new McpError(ErrorCode.InvalidParams, `Task ${record.taskId} was cancelled`);
  const outcome = record.result ?? {};
  const meta = isObject(outcome._meta) ? outcome._meta : {};
  return extend(outcome, { _meta: extend(meta, { [RELATED_TASK]: { taskId: record.taskId } }) });
}

export const CORE_TASKS: TaskDesign = {
  name: 'core',
  has,

  /** §Server Capabilities: list, cancel, task-augmented tools/call. */
  capabilities(v, caps) {
    if (has(v)) caps.tasks = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
  },

  methods: (runner) => ({
    'tasks/get': {
      mcpName: 'taskId',
      revisions: has,
      run: async (params, _ctx, site) => legacyTask(await runner.find(params, site, CORE_TASKS)),
    },
    'tasks/cancel': {
      mcpName: 'taskId',
      revisions: has,
      run: async (params, _ctx, site) => {
        const record = await runner.find(params, site, CORE_TASKS);
        // §Task Cancellation: a terminal task is refused with -32602.
        if (TERMINAL.has(record.status)) throw new McpError(ErrorCode.InvalidParams, `Task ${record.taskId} is already ${record.status}`);
        const after = await runner.change(record.taskId, { status: 'cancelled', statusMessage: 'The task was cancelled by request.' });
        await runner.toRunner(record.runner, { type: 'cancel', taskId: record.taskId });
        return legacyTask(after ?? (await runner.find(params, site, CORE_TASKS)));
      },
    },
    'tasks/result': {
      revisions: has,
      run: async (params, _ctx, site) => verbatim(await result(runner, params, site)),
    },
    'tasks/list': {
      revisions: has,
      run: async (params, _ctx, site) => {
        const cursor = params.cursor;
        if (cursor !== undefined && typeof cursor !== 'string') throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor');
        const page = await runner.list(ownerOf(site), cursor);
        const tasks = page.records.filter((r) => r.design === 'core').map(legacyTask);
        return page.nextCursor === undefined ? { tasks } : { tasks, nextCursor: page.nextCursor };
      },
    },
  }),

  toolCall(runner, tool, options, ctx, params, run) {
    const asked = params.task;
    if (asked === undefined) {
      // §Tool-Level Negotiation: a required tool called without a task is -32601.
      if (options.support === 'required')
        throw new McpError(ErrorCode.MethodNotFound, `Tool ${tool.name} must be called as a task (params.task)`);
      return undefined;
    }
    if (options.support === 'forbidden') throw new McpError(ErrorCode.MethodNotFound, `Tool ${tool.name} cannot be called as a task`);
    if (!isObject(asked)) throw new McpError(ErrorCode.InvalidParams, 'params.task must be an object');
    const ttl = typeof asked.ttl === 'number' && Number.isInteger(asked.ttl) && asked.ttl > 0 ? asked.ttl : undefined;
    return runner.begin(CORE_TASKS, options, ctx, params, run, ttl);
  },

  reach(runner, running, site) {
    const session = site.session;
    if (session === undefined)
      return { asker: new ParkingAsker(running, site.client.capabilities), inbound: modernTaskChannel(running, site.inbound) };
    tieToSession(runner, session, running);
    return { asker: new SessionTaskAsker(running, session), inbound: sessionTaskChannel(running, session, site.inbound) };
  },

  /**
   * A run again on an instance that took the task over: the session's requests and
   * notifications stay with the instances that serve the session, so its asks are refused
   * (a 2025-11-25 client answers only real requests, which this run cannot send) and its
   * progress goes nowhere; the outcome lands in the record, where `tasks/get` and
   * `tasks/result` find it.
   */
  reachAgain: (_runner, running, site) => ({
    asker: {
      ask: (method) =>
        Promise.reject(
          new McpError(
            ErrorCode.InternalError,
            `${method}: task ${running.taskId} runs again on another server instance, which cannot ask its 2025-11-25 client`,
          ),
        ),
    },
    inbound: modernTaskChannel(running, site.inbound),
  }),

  ended(running) {
    if (running.session !== undefined) bySession.get(running.session)?.delete(running);
  },

  announce(runner, record) {
    const session = runner.runningTask(record.taskId)?.session;
    if (session !== undefined && !session.closed) {
      session.sendUnsolicited({ jsonrpc: '2.0', method: 'notifications/tasks/status', params: legacyTask(record) });
    }
  },
};
