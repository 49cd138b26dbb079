/**
 * How a legacy session asks its client (`elicit`, `sample`, `roots`): real server-to-client
 * requests, checked first against the session's revision and the capabilities its client
 * declared. A request's `ctx` asks on that request's stream; the session's handle asks on the
 * session's own channel.
 */
import { JanusError } from '../../protocol/errors.js';
import { revision, since } from '../../protocol/revisions.js';
import { LATEST_LEGACY_VERSION } from '../../protocol/versions.js';
import { clientCan, isAnswer, type AskAnswers, type AskMethod, type AskParams, type Asker } from '../ask.js';
import type { AskOptions } from '../context.js';
import { isObject } from '../guards.js';
import type { Inbound } from '../transport-seam.js';
import { clientRunsAsTask, requestAsTask } from './client-task.js';
import type { Session } from './session.js';

/** 2025-06-18 `PrimitiveSchemaDefinition`: flat properties of primitive types; multi-select arrived in 2025-11-25. */
function primitiveOnly(schema: unknown): string | undefined {
  const props = isObject(schema) && isObject(schema.properties) ? schema.properties : {};
  for (const [name, prop] of Object.entries(props)) {
    const type = isObject(prop) ? prop.type : undefined;
    if (!['string', 'number', 'integer', 'boolean'].includes(String(type))) return `field "${name}" has type ${JSON.stringify(type)}`;
  }
  return undefined;
}

const ELICITATION_SINCE = since((r) => r.methods.serverRequests.has('elicitation/create'));
const SAMPLING_TOOLS_SINCE = since((r) => r.capabilities.client.has('sampling.tools'));

/** Reaches the client through real server-to-client requests on the session. */
export class SessionAsker implements Asker {
  constructor(
    private readonly session: Session,
    /** The stream of the request that asks; undefined: the session's host (stdout, the GET stream). */
    private readonly via: Inbound | undefined,
    /** The asking request's cancellation, read only when it asks. */
    private readonly cancel: { readonly signal: AbortSignal } | undefined,
  ) {}

  async ask<M extends AskMethod>(method: M, params: AskParams[M], options: AskOptions | undefined): Promise<AskAnswers[M]> {
    const session = this.session;
    const v = session.protocolVersion ?? LATEST_LEGACY_VERSION;
    // A failed ask is the handler's problem, not the client's request's: a local error
    // (a tool reports it as isError), never a request that the revision cannot carry.
    const refuse = (why: string) => new JanusError('PROTOCOL', why);
    const rev = revision(v);
    const wire: Record<string, unknown> = { ...params };
    if (!rev.methods.serverRequests.has(method)) {
      throw refuse(
        method === 'elicitation/create'
          ? `elicitation needs protocol ${ELICITATION_SINCE} or later (session uses ${v})`
          : `${method} does not exist in protocol ${v}`,
      );
    }
    if (method === 'elicitation/create') {
      const problem = rev.features.multiSelectElicitation ? undefined : primitiveOnly(wire.requestedSchema);
      if (problem) throw refuse(`${problem}: protocol ${v} elicitation allows only string, number, integer, boolean and enum fields`);
    }
    if (!clientCan(session.clientCapabilities, method, params)) throw refuse(`the client did not declare the capability ${method} needs`);
    if (
      method === 'sampling/createMessage' &&
      !rev.capabilities.client.has('sampling.tools') &&
      (wire.tools !== undefined || wire.toolChoice !== undefined)
    ) {
      throw refuse(`sampling with tools needs protocol ${SAMPLING_TOOLS_SINCE} (session uses ${v})`);
    }
    // `mode` came with URL elicitation.
    const sent =
      method === 'elicitation/create' && wire.mode === undefined && rev.features.urlElicitation ? { mode: 'form', ...wire } : wire;
    // 2025-11-25: asked to, and the client runs this kind of request as a task: the answer is the task's outcome.
    const asTask = options?.task !== undefined && options.task !== false && rev.experimental.serverRequests.has('tasks/get');
    const answer =
      asTask && clientRunsAsTask(session, method)
        ? await requestAsTask(
            session,
            method,
            sent,
            typeof options.task === 'object' ? options.task.ttlMs : undefined,
            this.via,
            this.cancel?.signal,
            options.timeoutMs,
          )
        : await session.request(method, sent, this.via, this.cancel?.signal, options?.timeoutMs);
    if (!isAnswer(method, answer)) throw refuse(`the client's answer to ${method} does not have the shape its result needs`);
    return answer;
  }
}
