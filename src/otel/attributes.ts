/**
 * The attribute names and values of the MCP semantic conventions (OpenTelemetry
 * semantic-conventions-genai docs/gen-ai/mcp.md, status Development), shared by the server
 * and client instrumentation, plus the one Janus adds: `janus.mcp.era`.
 */
import type { Attributes } from '@opentelemetry/api';
import type { TransportKind } from '../spi/index.js';

export const ATTR = {
  method: 'mcp.method.name',
  protocolVersion: 'mcp.protocol.version',
  sessionId: 'mcp.session.id',
  resourceUri: 'mcp.resource.uri',
  requestId: 'jsonrpc.request.id',
  toolName: 'gen_ai.tool.name',
  promptName: 'gen_ai.prompt.name',
  operation: 'gen_ai.operation.name',
  toolArguments: 'gen_ai.tool.call.arguments',
  toolResult: 'gen_ai.tool.call.result',
  errorType: 'error.type',
  statusCode: 'rpc.response.status_code',
  networkTransport: 'network.transport',
  networkProtocol: 'network.protocol.name',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  era: 'janus.mcp.era',
} as const;

/** mcp.md §Client note [6]: `gen_ai.operation.name` is set for tool calls only. */
export const EXECUTE_TOOL = 'execute_tool';
/** mcp.md §Client note [1]: a CallToolResult with `isError: true`. */
export const TOOL_ERROR = 'tool_error';
/** error.type's fallback when a failure has no class to name. */
export const OTHER_ERROR = '_OTHER';

/** The histograms' buckets, in seconds, as mcp.md §Metrics advises for every duration. */
export const DURATION_BUCKETS: readonly number[] = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** A transport's kind, on either side: the built-in ones, or a custom transport's own name. */
export type TransportName = TransportKind;

/**
 * `network.transport` (mcp.md §Recording MCP transport): `pipe` for stdio, `tcp` for HTTP
 * (Streamable or SSE); an in-memory pair, or a custom transport Janus does not know, has none.
 */
export function networkTransport(kind: TransportName | undefined): 'pipe' | 'tcp' | undefined {
  switch (kind) {
    case 'stdio':
      return 'pipe';
    case 'http':
    case 'sse':
      return 'tcp';
    default:
      return undefined;
  }
}

/**
 * The low-cardinality target of a span name (mcp.md §Client "Span name"): the tool or prompt
 * name; never a resource URI, which would make one name per resource.
 */
export function targetOf(method: string, params: Record<string, unknown>): string | undefined {
  if (method !== 'tools/call' && method !== 'prompts/get') return undefined;
  const name = params.name;
  return typeof name === 'string' ? name : undefined;
}

/** `{mcp.method.name} {target}`, or the method alone. */
export function spanName(method: string, target: string | undefined): string {
  return target === undefined ? method : `${method} ${target}`;
}

/** What both span and metric attributes start from: method, target, version, transport. */
export interface Operation {
  readonly method: string;
  readonly target: string | undefined;
  readonly protocolVersion: string | undefined;
  readonly transport: 'pipe' | 'tcp' | undefined;
}

/**
 * The attributes of an operation's duration metric (mcp.md §Metrics): low cardinality only,
 * so no ids and no URIs. Built as one object literal, filled in place.
 */
export function metricAttributes(op: Operation): Attributes {
  const a: Attributes = { [ATTR.method]: op.method };
  if (op.target !== undefined) {
    if (op.method === 'tools/call') {
      a[ATTR.toolName] = op.target;
      a[ATTR.operation] = EXECUTE_TOOL;
    } else {
      a[ATTR.promptName] = op.target;
    }
  }
  if (op.protocolVersion !== undefined) a[ATTR.protocolVersion] = op.protocolVersion;
  if (op.transport !== undefined) a[ATTR.networkTransport] = op.transport;
  return a;
}

/**
 * Adds a span's request attributes to `a` (a metric attribute set, copied first): the
 * request id, the session, the era, the resource URI of the methods that carry one.
 */
export function spanAttributes(
  op: Operation,
  params: Record<string, unknown>,
  extra: { requestId: string | number | undefined; sessionId: string | undefined; era: string | undefined },
): Attributes {
  const a = metricAttributes(op);
  if (extra.requestId !== undefined && extra.requestId !== null) a[ATTR.requestId] = String(extra.requestId);
  if (extra.sessionId !== undefined) a[ATTR.sessionId] = extra.sessionId;
  if (extra.era !== undefined) a[ATTR.era] = extra.era;
  if (op.transport === 'tcp') a[ATTR.networkProtocol] = 'http';
  if (carriesUri(op.method) && typeof params.uri === 'string') a[ATTR.resourceUri] = params.uri;
  return a;
}

/** mcp.md note [4]: the requests whose resource URI is recorded. */
function carriesUri(method: string): boolean {
  return method === 'resources/read' || method === 'resources/subscribe' || method === 'resources/unsubscribe';
}
