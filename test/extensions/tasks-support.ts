/** Shared pieces of the tasks tests. Not a test file. */
import { createServer, type Server } from '../../src/server/index.js';
import { task, tasks, type TaskSupport, type ToolTaskOptions } from '../../src/extensions/tasks/index.js';
import { aborted, deferred } from '../support/wait.js';

/**
 * A server with the tasks extension and one task tool, `name`, whose handler runs until its
 * signal aborts (cancelled, expired, session ended); `started` resolves with that signal once
 * the handler runs.
 */
export function waitingServer(
  name = 'wait',
  support: TaskSupport | ToolTaskOptions = 'optional',
): { server: Server; started: Promise<AbortSignal> } {
  const server = createServer({ name: 't', version: '1', extensions: [tasks()] });
  const started = deferred<AbortSignal>();
  server.tool(name, { extensions: task(support) }, async (_args, ctx) => {
    started.resolve(ctx.signal);
    await aborted(ctx.signal);
    return 'finished anyway';
  });
  return { server, started: started.promise };
}
