/**
 * How a running task asks its client. The 2026 extension parks the task: the request goes in
 * the task's `inputRequests` and the answer comes by `tasks/update` (ext-tasks §Task Update
 * Requests). 2025-11-25 sends a real server-to-client request carrying the related-task
 * `_meta` (basic/utilities/tasks.mdx §Input Required Status), on the stream of a waiting
 * `tasks/result` when there is one, else on the session's own channel; the task is
 * `input_required` while it waits.
 */
import { ErrorCode, JanusError, McpError } from '../../protocol/errors.js';
import type { JsonRpcMessage } from '../../protocol/jsonrpc.js';
import type { ClientCapabilities } from '../../protocol/types.js';
import { clientCan, isAnswer, requiredCapability, type AskAnswers, type AskMethod, type AskParams, type Asker } from '../../server/ask.js';
import type { AskOptions } from '../../server/context.js';
import type { Inbound } from '../../server/transport-seam.js';
import type { Running } from './running.js';

const SHORT: Record<AskMethod, string> = {
  'elicitation/create': 'elicit',
  'sampling/createMessage': 'sample',
  'roots/list': 'roots',
};

/** 2026 extension: asks become the task's input requests. */
export class ParkingAsker implements Asker {
  private seq = 0;

  constructor(
    private readonly running: Running,
    private readonly capabilities: ClientCapabilities,
  ) {}

  ask<M extends AskMethod>(method: M, params: AskParams[M], options: AskOptions | undefined): Promise<AskAnswers[M]> {
    if (!clientCan(this.capabilities, method, params)) {
      return Promise.reject(
        new McpError(ErrorCode.MissingRequiredClientCapability, `This task needs the client capability for ${method}`, {
          requiredCapabilities: requiredCapability(method, params),
        }),
      );
    }
    // Unique over the task's lifetime (ext-tasks: a key is never reused once answered), runs
    // again included: a run that took over after its instance died asks under keys of its own.
    const run = this.running.runs === 1 ? '' : `-r${this.running.runs}`;
    const key = `${options?.key ?? SHORT[method]}${run}-${this.seq++}`;
    return this.running.park(key, { method, params: { ...params } }).then((answer) => {
      if (!isAnswer(method, answer))
        throw new JanusError('PROTOCOL', `the client's answer to ${method} does not have the shape its result needs`);
      return answer;
    });
  }
}

/** 2025-11-25: real requests on the session, tagged with the task. */
export function modernTaskChannel(running: Running, origin: Inbound): Inbound {
  return {
    transport: origin.transport,
    principal: origin.principal,
    auth: origin.auth,
    send(message: JsonRpcMessage): void {
      if (!('method' in message) || message.method !== 'notifications/progress') return;
      const text = message.params?.message;
      if (typeof text === 'string') running.setStatusMessage(text);
    },
  };
}
