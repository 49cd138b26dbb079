/**
 * One set of handlers answers the server in both eras: legacy server-to-client requests
 * and the `inputRequests` of a modern `input_required` result go through `answerServer`.
 */
import { ErrorCode, McpError } from '../protocol/errors.js';
import type { CreateMessageParams, ElicitParams, ElicitResult } from '../protocol/types.js';
import { applyElicitationDefaults } from './defaults.js';
import type { ConnectOptions, HandlerContext } from './options.js';

export async function answerServer(options: ConnectOptions, method: string, params: Record<string, unknown>, ctx: HandlerContext): Promise<Record<string, unknown>> {
  switch (method) {
    case 'ping':
      return {};
    case 'elicitation/create': {
      if (!options.onElicit) break;
      const result = await options.onElicit(params as unknown as ElicitParams, ctx);
      const schema = params.mode === 'url' ? undefined : params.requestedSchema;
      return applyElicitationDefaults(schema, result) as unknown as Record<string, unknown>;
    }
    case 'sampling/createMessage':
      if (!options.onSample) break;
      return (await options.onSample(params as unknown as CreateMessageParams, ctx)) as unknown as Record<string, unknown>;
    case 'roots/list':
      if (!options.onRoots) break;
      return { roots: await options.onRoots(ctx) };
  }
  throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
}

export type { ElicitResult };
