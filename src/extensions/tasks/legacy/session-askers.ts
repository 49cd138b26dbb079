/**
 * How a 2025-11-25 task reaches its client through its session: real server-to-client
 * requests (tagged with the task, §Associating Task-Related Messages), on the stream of a
 * `tasks/result` waiting on the task when there is one; and its notifications likewise.
 */
import type { JsonRpcMessage } from '../../../protocol/jsonrpc.js';
import type { AskAnswers, AskMethod, AskParams, Asker } from '../../../server/ask.js';
import type { SiteSession } from '../../../server/call.js';
import type { AskOptions } from '../../../server/context.js';
import type { Inbound } from '../../../server/transport-seam.js';
import type { Running } from '../running.js';
import { RELATED_TASK } from '../wire.js';

export class SessionTaskAsker implements Asker {
  constructor(
    private readonly running: Running,
    private readonly session: SiteSession,
  ) {}

  async ask<M extends AskMethod>(method: M, params: AskParams[M], options: AskOptions | undefined): Promise<AskAnswers[M]> {
    const tagged = { ...params, _meta: { ...params._meta, [RELATED_TASK]: { taskId: this.running.taskId } } } as AskParams[M];
    await this.running.waiting(+1);
    try {
      // Nothing reaches the client now (Streamable HTTP without a GET stream): the task waits,
      // input_required, for the `tasks/result` the client sends on seeing that (§Input Required Status).
      let via = this.running.resultStream;
      if (via === undefined && !this.session.reachable) via = await this.running.nextResultStream();
      return await this.session.asker(via, this.running.signal).ask(method, tagged, options);
    } finally {
      await this.running.waiting(-1);
    }
  }
}

/**
 * Where a 2025-11-25 task's progress and logs go: a waiting `tasks/result`'s stream, else the
 * session's channel, tagged with the task. The original progress token stays valid for the
 * task's lifetime (§Task Progress Notifications).
 */
export function sessionTaskChannel(running: Running, session: SiteSession, origin: Inbound): Inbound {
  return {
    transport: origin.transport,
    principal: origin.principal,
    auth: origin.auth,
    send(message: JsonRpcMessage): void {
      if (!('method' in message)) return;
      const params = {
        ...message.params,
        _meta: { ...(message.params?._meta as object | undefined), [RELATED_TASK]: { taskId: running.taskId } },
      };
      const tagged = { ...message, params };
      const via = running.resultStream;
      if (via !== undefined) via.send(tagged);
      else session.sendUnsolicited(tagged);
    },
  };
}

/**
 * Where a 2026 task's progress goes: nowhere on the wire (ext-tasks: progress and log
 * notifications are not supported on tasks); a progress message becomes the status message.
 */
