/**
 * The four ways server code asks the client (`elicit`, `elicitUrl`, `sample`, `roots`) over an
 * era's `Asker` (ask.ts). A request's context (call.ts) and a legacy session's handle
 * (legacy/session-handle.ts) both ask through these, so they convert and check alike.
 */
import { JanusError } from '../protocol/errors.js';
import { revision, since } from '../protocol/revisions.js';
import type { Era, ProtocolVersion } from '../protocol/versions.js';
import type { CreateMessageParams, CreateMessageResult, ElicitFormParams, ElicitResult, ElicitUrlParams, Root } from '../protocol/types.js';
import type { Asker } from './ask.js';
import type { AskOptions, ElicitAnswer, ElicitFormRequest, ElicitUrlRequest } from './context.js';
import { contextFailure } from './features/tool-error.js';
import { isStandard } from './schema/convert.js';
import { elicitationForm, type ElicitationForm } from './schema/elicitation.js';
import type { JsonSchemaObject, StandardSchema } from './schema/types.js';

/** A call to the client failed: its error (Janus's own words about the client) is one the model may read. */
function rethrowForModel(error: unknown): never {
  throw contextFailure(error);
}

/** A form; a Standard Schema is sent as a flat JSON Schema and validates (and types) accepted content. */
export function askForm(
  asker: Asker,
  request: ElicitFormRequest<StandardSchema | JsonSchemaObject>,
  options: AskOptions | undefined,
): Promise<ElicitResult | ElicitAnswer<unknown>> {
  return form(asker, request, options).catch(rethrowForModel);
}

async function form(
  asker: Asker,
  request: ElicitFormRequest<StandardSchema | JsonSchemaObject>,
  options: AskOptions | undefined,
): Promise<ElicitResult | ElicitAnswer<unknown>> {
  // A Standard Schema becomes a flat requestedSchema here, before anything is asked.
  const schema = request.requestedSchema;
  let converted: ElicitationForm | undefined;
  let requestedSchema: JsonSchemaObject;
  if (isStandard(schema)) {
    converted = elicitationForm(schema);
    requestedSchema = converted.requestedSchema;
  } else {
    requestedSchema = schema;
  }
  const params: ElicitFormParams = { message: request.message, requestedSchema };
  if (request._meta) params._meta = request._meta;
  const answer = await asker.ask('elicitation/create', params, options);
  if (!converted) return answer;
  if (answer.action !== 'accept') return answer._meta ? { action: answer.action, _meta: answer._meta } : { action: answer.action };
  const checked = await converted.validate(answer.content ?? {});
  if (!checked.ok) {
    throw new JanusError('SCHEMA', `the client's answer to "${request.message}" does not match the requested schema: ${checked.message}`);
  }
  return { ...answer, action: 'accept', content: checked.value };
}

/** A URL for the user to visit (2025-11-25 and later); `asking` names who asks in the error ("this request"). */
export async function askUrl(
  asker: Asker,
  version: ProtocolVersion,
  era: Era,
  request: ElicitUrlRequest,
  options: AskOptions | undefined,
  asking = 'this request',
): Promise<ElicitResult> {
  if (!revision(version).features.urlElicitation) {
    throw contextFailure(
      new JanusError(
        'PROTOCOL',
        `URL elicitation needs protocol ${since((r) => r.features.urlElicitation)} or later (${asking} uses ${version})`,
      ),
    );
  }
  const params: ElicitUrlParams = { mode: 'url', message: request.message, url: request.url };
  // 2025-11-25 correlates completion through elicitationId; 2026-07-28 dropped it.
  if (era === 'legacy') params.elicitationId = request.elicitationId ?? crypto.randomUUID();
  if (request._meta) params._meta = request._meta;
  return asker.ask('elicitation/create', params, options).catch(rethrowForModel);
}

export function askSample(asker: Asker, request: CreateMessageParams, options: AskOptions | undefined): Promise<CreateMessageResult> {
  return asker.ask('sampling/createMessage', request, options).catch(rethrowForModel);
}

export async function askRoots(asker: Asker, options: AskOptions | undefined): Promise<Root[]> {
  return (await asker.ask('roots/list', {}, options).catch(rethrowForModel)).roots;
}
