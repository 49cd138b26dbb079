/**
 * One inbound request being served: its context object and the two era-specific seams,
 * the `Asker` (how `elicit`/`sample`/`roots` reach the client, ask.ts) and the emitters
 * (where progress and logs go).
 */
import { JanusError } from '../protocol/errors.js';
import type { JsonRpcMessage, RequestId } from '../protocol/jsonrpc.js';
import { revision, since } from '../protocol/revisions.js';
import type { Era, ProtocolVersion } from '../protocol/versions.js';
import {
  LOGGING_LEVELS,
  type CreateMessageParams,
  type CreateMessageResult,
  type ElicitFormParams,
  type ElicitResult,
  type ElicitUrlParams,
  type LoggingLevel,
  type Meta,
  type Root,
} from '../protocol/types.js';
import type { Asker } from './ask.js';
import type { AskOptions, ClientView, ElicitAnswer, ElicitFormRequest, ElicitUrlRequest, RequestContext } from './context.js';
import { isStandard } from './schema/convert.js';
import { elicitationForm, type ElicitationForm } from './schema/elicitation.js';
import type { JsonSchemaObject, Parsed, StandardSchema } from './schema/types.js';
import { contextFailure } from './features/tool-error.js';
import type { Inbound } from './transport-seam.js';
import type { Cancellation } from './cancel.js';

export interface CallInit {
  readonly requestId: RequestId;
  readonly era: Era;
  readonly version: ProtocolVersion;
  readonly client: ClientView;
  readonly meta: Meta | undefined;
  readonly sessionId: string | undefined;
  readonly inbound: Inbound;
  readonly cancel: Cancellation;
  /** Minimum level to forward, or undefined to forward nothing. */
  readonly logLevel: LoggingLevel | undefined;
  readonly asker: Asker;
}

const NOOP_CLOSE = () => {};

/** A `ctx` call to the client failed: its error (Janus's own words about the client) is one the model may read. */
function rethrowForModel(error: unknown): never {
  throw contextFailure(error);
}

export class Call implements RequestContext {
  readonly requestId: RequestId;
  readonly era: Era;
  readonly protocolVersion: ProtocolVersion;
  readonly client: ClientView;
  readonly meta: Meta | undefined;
  readonly sessionId: string | undefined;
  private readonly cancel: Cancellation;
  private readonly inbound: Inbound;
  private readonly logLevel: LoggingLevel | undefined;
  private readonly asker: Asker;

  constructor(init: CallInit) {
    this.requestId = init.requestId;
    this.era = init.era;
    this.protocolVersion = init.version;
    this.client = init.client;
    this.meta = init.meta;
    this.sessionId = init.sessionId;
    this.cancel = init.cancel;
    this.inbound = init.inbound;
    this.logLevel = init.logLevel;
    this.asker = init.asker;
  }

  get signal(): AbortSignal {
    return this.cancel.signal;
  }

  private emit(message: JsonRpcMessage): void {
    if (!this.cancel.aborted) this.inbound.send(message);
  }

  progress(progress: number, total?: number, message?: string): void {
    const token = this.meta?.progressToken;
    if (typeof token !== 'string' && typeof token !== 'number') return;
    const params: Record<string, unknown> = { progressToken: token, progress };
    if (total !== undefined) params.total = total;
    // `message` joined the progress notification in 2025-03-26.
    if (message !== undefined && revision(this.protocolVersion).features.progressMessage) params.message = message;
    this.emit({ jsonrpc: '2.0', method: 'notifications/progress', params });
  }

  log(level: LoggingLevel, data: unknown, logger?: string): void {
    if (this.logLevel === undefined || LOGGING_LEVELS.indexOf(level) < LOGGING_LEVELS.indexOf(this.logLevel)) return;
    const params: Record<string, unknown> = { level, data };
    if (logger !== undefined) params.logger = logger;
    this.emit({ jsonrpc: '2.0', method: 'notifications/message', params });
  }

  elicit<S extends StandardSchema>(request: ElicitFormRequest<S>, options?: AskOptions): Promise<ElicitAnswer<Parsed<S>>>;
  elicit(request: ElicitFormRequest, options?: AskOptions): Promise<ElicitResult>;
  elicit(
    request: ElicitFormRequest<StandardSchema | JsonSchemaObject>,
    options?: AskOptions,
  ): Promise<ElicitResult | ElicitAnswer<unknown>> {
    return this.elicitForm(request, options).catch(rethrowForModel);
  }

  private async elicitForm(
    request: ElicitFormRequest<StandardSchema | JsonSchemaObject>,
    options: AskOptions | undefined,
  ): Promise<ElicitResult | ElicitAnswer<unknown>> {
    // A Standard Schema becomes a flat requestedSchema here, before anything is asked.
    const schema = request.requestedSchema;
    let form: ElicitationForm | undefined;
    let requestedSchema: JsonSchemaObject;
    if (isStandard(schema)) {
      form = elicitationForm(schema);
      requestedSchema = form.requestedSchema;
    } else {
      requestedSchema = schema;
    }
    const params: ElicitFormParams = { message: request.message, requestedSchema };
    if (request._meta) params._meta = request._meta;
    const answer = await this.asker.ask('elicitation/create', params, options);
    if (!form) return answer;
    if (answer.action !== 'accept') return answer._meta ? { action: answer.action, _meta: answer._meta } : { action: answer.action };
    const checked = await form.validate(answer.content ?? {});
    if (!checked.ok) {
      throw new JanusError('SCHEMA', `the client's answer to "${request.message}" does not match the requested schema: ${checked.message}`);
    }
    return { ...answer, action: 'accept', content: checked.value };
  }

  async elicitUrl(request: ElicitUrlRequest, options?: AskOptions): Promise<ElicitResult> {
    if (!revision(this.protocolVersion).features.urlElicitation) {
      throw contextFailure(
        new JanusError(
          'PROTOCOL',
          `URL elicitation needs protocol ${since((r) => r.features.urlElicitation)} or later (this request uses ${this.protocolVersion})`,
        ),
      );
    }
    const params: ElicitUrlParams = { mode: 'url', message: request.message, url: request.url };
    // 2025-11-25 correlates completion through elicitationId; 2026-07-28 dropped it.
    if (this.era === 'legacy') params.elicitationId = request.elicitationId ?? crypto.randomUUID();
    if (request._meta) params._meta = request._meta;
    return this.asker.ask('elicitation/create', params, options).catch(rethrowForModel);
  }

  sample(request: CreateMessageParams, options?: AskOptions): Promise<CreateMessageResult> {
    return this.asker.ask('sampling/createMessage', request, options).catch(rethrowForModel);
  }

  async roots(options?: AskOptions): Promise<Root[]> {
    return (await this.asker.ask('roots/list', {}, options).catch(rethrowForModel)).roots;
  }

  closeStream(): void {
    (this.inbound.closeStream ?? NOOP_CLOSE).call(this.inbound);
  }
}
