/**
 * One set of handlers answers the server in both eras: legacy server-to-client requests
 * and the `inputRequests` of a modern `input_required` result go through `answerServer`.
 */
import { ErrorCode, McpError } from '../protocol/errors.js';
import type { CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, Root } from '../protocol/types.js';
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

export async function answerServer(
  options: ConnectOptions,
  method: string,
  params: Record<string, unknown>,
  ctx: HandlerContext,
): Promise<ServerRequestResult> {
  switch (method) {
    case 'ping':
      return {};
    case 'elicitation/create': {
      if (!options.onElicit) break;
      const request = paramsOf(method, params);
      const result = await options.onElicit(request, ctx);
      return applyElicitationDefaults(request.mode === 'url' ? undefined : request.requestedSchema, result);
    }
    case 'sampling/createMessage':
      if (!options.onSample) break;
      return options.onSample(paramsOf(method, params), ctx);
    case 'roots/list':
      if (!options.onRoots) break;
      return { roots: await options.onRoots(ctx) };
  }
  throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
}
