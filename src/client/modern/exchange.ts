/**
 * One 2026-07-28 request, end to end: the `_meta` envelope; on HTTP the Mcp-* headers, with
 * each tool's x-mcp-header parameters from the last tools/list; the one retry each the spec
 * allows (-32020 after listing the tools again, -32022 with a mutual version); and the
 * input_required loop (mrtr.mdx), answered with the client's handlers, bounded by
 * `maxInputRounds` rounds of at most `maxInputRequests` asks each.
 */
import { ErrorCode, JanusError } from '../../protocol/errors.js';
import { META, TASKS_EXTENSION } from '../../protocol/meta.js';
import type { Implementation, InputRequiredResult, Result } from '../../protocol/types.js';
import { latestVersion, isModernVersion, type ProtocolVersion } from '../../protocol/versions.js';
import type { HeaderParam } from '../../protocol/x-mcp-header.js';
import { clientCapabilities } from '../capabilities.js';
import type { ConnectionContext } from '../connection.js';
import { DEFAULT_MAX_INPUT_REQUESTS, DEFAULT_MAX_INPUT_ROUNDS } from '../limits.js';
import type { CallOptions } from '../peer.js';
import { answerServer } from '../server-requests.js';
import type { TaskDeclaration } from '../tasks/tool-calls.js';
import { errorOf, supportedVersionsOf } from '../wire-errors.js';
import { envelope, modernHeaders, type RequestParams } from './envelope.js';

/** The requests whose result may be input_required (mrtr.mdx). */
const ASKING = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** Every modern result names the server in `_meta` (basic/index.mdx §_meta). */
export interface ServerInfoMeta {
  [META.serverInfo]?: Implementation;
}

export class ModernExchange {
  /** Each tool's x-mcp-header parameters, from the last tools/list (tools.mdx §x-mcp-header). */
  readonly toolHeaders = new Map<string, readonly HeaderParam[]>();

  /** `listTools`: a -32020 may mean the annotations changed, so the tools are listed again. */
  constructor(
    private readonly context: ConnectionContext,
    private readonly listTools: () => Promise<unknown>,
  ) {}

  /** Sends `method` with `version` in `_meta` (default: the verdict's) and returns its final result. */
  async send(
    method: string,
    params: RequestParams,
    options: CallOptions = {},
    version: ProtocolVersion = this.context.server.current?.version ?? latestVersion(),
    id?: number,
  ): Promise<Result> {
    const { wire, server, options: settings, clientInfo } = this.context;
    // ext-tasks: declared where a task may come back (tools/call) or be asked about (tasks/*), unless this call opts out.
    const tasks = (method === 'tools/call' || method.startsWith('tasks/')) && !(options as TaskDeclaration).withoutTasks;
    const caps = clientCapabilities(settings, version, tasks);
    const http = wire.kind === 'http';
    const maxRounds = settings.maxInputRounds ?? DEFAULT_MAX_INPUT_ROUNDS;
    let retriedHeaders = false;
    let retriedVersion = false;
    let current = params;
    for (let round = 0; ; round++) {
      const body = envelope(current, version, caps, clientInfo, this.context.logLevel);
      const headers = http ? modernHeaders(method, current, version, this.toolHeaders.get(String(current.name))) : undefined;
      const response = await wire.call(method, body, options, { headers }, round === 0 ? id : undefined);
      if ('error' in response) {
        // streamable-http.mdx §Custom Headers: on -32020 re-fetch tools/list (the annotations may have changed) and retry once.
        if (response.error.code === ErrorCode.HeaderMismatch && method === 'tools/call' && http && !retriedHeaders) {
          retriedHeaders = true;
          await this.listTools().catch(() => {});
          round--;
          continue;
        }
        // versioning.mdx: a client may skip discover and handle -32022 inline, retrying with a mutual version.
        if (response.error.code === ErrorCode.UnsupportedProtocolVersion && !retriedVersion) {
          const supported = supportedVersionsOf(response.error.data);
          const mutual = Array.isArray(supported) ? supported.find(isModernVersion) : undefined;
          if (mutual) {
            retriedVersion = true;
            version = mutual;
            const verdict = server.current;
            if (verdict?.era === 'modern') server.settle({ ...verdict, version: mutual });
            round--;
            continue;
          }
        }
        throw errorOf(response);
      }
      const result: Result = response.result;
      this.learnServerInfo(result);
      const type = result.resultType;
      if (type === undefined || type === 'complete') return result;
      // ext-tasks §Polymorphic Results: a task only where the extension was declared, else an invalid response.
      if (type === 'task' && method === 'tools/call' && caps.extensions?.[TASKS_EXTENSION]) return result;
      if (type !== 'input_required' || !ASKING.has(method)) {
        throw new JanusError('PROTOCOL', `${method}: unrecognized resultType ${JSON.stringify(type)}`);
      }
      if (round + 1 >= maxRounds) throw new JanusError('PROTOCOL', `${method}: still input_required after ${maxRounds} rounds`);
      current = await this.nextRound(method, params, result, options.signal);
    }
  }

  /** mrtr.mdx §Client Requirements: the original params, this round's answers only, the state echoed byte for byte. */
  private async nextRound(
    method: string,
    params: RequestParams,
    result: Partial<InputRequiredResult>,
    signal: AbortSignal | undefined,
  ): Promise<RequestParams> {
    const next: RequestParams = { ...params };
    const requests = result.inputRequests ?? {};
    const keys = Object.keys(requests);
    // Every ask of a round is answered at once: a bound on them bounds the handlers a server can start.
    const max = this.context.options.maxInputRequests ?? DEFAULT_MAX_INPUT_REQUESTS;
    if (keys.length > max) {
      throw new JanusError(
        'PROTOCOL',
        `${method}: the server asked for ${keys.length} inputs in one input_required round; this client answers at most ${max} (maxInputRequests in the connect options). No handler was called.`,
      );
    }
    if (keys.length) {
      const { server, options, closed } = this.context;
      const ctx = server.handlerContext(signal ?? closed);
      const answers = await Promise.all(keys.map((k) => answerServer(options, requests[k]!.method, requests[k]!.params ?? {}, ctx)));
      next.inputResponses = Object.fromEntries(keys.map((k, i) => [k, answers[i]]));
    }
    if (typeof result.requestState === 'string') next.requestState = result.requestState;
    return next;
  }

  /** A client that skipped the probe learns the server's name from the first result's `_meta`. */
  private learnServerInfo(result: Result): void {
    const { server } = this.context;
    const verdict = server.current;
    if (verdict?.era !== 'modern' || verdict.serverInfo) return;
    const meta: ServerInfoMeta | undefined = result._meta;
    const info = meta?.[META.serverInfo];
    if (info && typeof info === 'object') server.settle({ ...verdict, serverInfo: info });
  }
}
