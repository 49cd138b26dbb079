/**
 * One set of handlers answers the server in both eras: legacy server-to-client requests
 * and the `inputRequests` of a modern `input_required` result go through `answerServer`.
 */
import { ErrorCode, McpError } from '../protocol/errors.js';
import type { CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, Root } from '../protocol/types.js';
import type { ServerRequestMethod } from '../protocol/methods.js';
import { applyElicitationDefaults } from './defaults.js';
import type { ConnectOptions, HandlerContext } from './options.js';

/** The params of each request a server may send a client (schema `ServerRequest`, `InputRequest`), and whatever else came with them. */
interface ParamsOf {
  'elicitation/create': ElicitParams & Record<string, unknown>;
  'sampling/createMessage': CreateMessageParams & Record<string, unknown>;
}

/** What the client answers (schema `InputResponse`, and ping's empty result). */
export type ServerRequestResult = ElicitResult | CreateMessageResult | { roots: Root[] } | Record<string, never>;

/** The seam where a server request's params become their wire type: the handler gets what the server sent. */
function paramsOf<M extends keyof ParamsOf>(_method: M, params: Record<string, unknown>): ParamsOf[M] {
  return params as ParamsOf[M];
}

type Answer = (options: ConnectOptions, params: Record<string, unknown>, ctx: HandlerContext) => Promise<ServerRequestResult> | undefined;

/**
 * How the client answers each request a server may send it (every `ServerRequest` of the
 * method catalogue: the compiler holds the table to it). `undefined`: no handler for it was
 * given, so it is answered -32601.
 */
export const SERVER_REQUEST_ROUTES: { readonly [M in ServerRequestMethod]: Answer } = {
  ping: async () => ({}),
  'elicitation/create': (options, params, ctx) => {
    const onElicit = options.onElicit;
    if (onElicit === undefined) return undefined;
    const request = paramsOf('elicitation/create', params);
    return Promise.resolve(onElicit(request, ctx)).then((result) =>
      applyElicitationDefaults(request.mode === 'url' ? undefined : request.requestedSchema, result),
    );
  },
  'sampling/createMessage': (options, params, ctx) => {
    const onSample = options.onSample;
    return onSample === undefined ? undefined : Promise.resolve(onSample(paramsOf('sampling/createMessage', params), ctx));
  },
  'roots/list': (options, _params, ctx) => {
    const onRoots = options.onRoots;
    return onRoots === undefined ? undefined : Promise.resolve(onRoots(ctx)).then((roots) => ({ roots }));
  },
};

const ROUTES: ReadonlyMap<string, Answer> = new Map(Object.entries(SERVER_REQUEST_ROUTES));

export async function answerServer(
  options: ConnectOptions,
  method: string,
  params: Record<string, unknown>,
  ctx: HandlerContext,
): Promise<ServerRequestResult> {
  const answer = ROUTES.get(method)?.(options, params, ctx);
  if (answer === undefined) throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
  return answer;
}
