/**
 * `janus-mcp/otel`: OpenTelemetry for Janus servers and clients, following the semantic
 * conventions for MCP (OpenTelemetry semantic-conventions-genai docs/gen-ai/mcp.md, status
 * Development).
 *
 * - Spans: a SERVER span per request the server answers and a CLIENT span per request the
 *   client sends, named `{mcp.method.name} {target}` (the tool or prompt name), with
 *   `mcp.method.name`, `jsonrpc.request.id` (server side), `mcp.protocol.version`,
 *   `mcp.session.id`, `gen_ai.tool.name` and `gen_ai.operation.name` (tools/call),
 *   `gen_ai.prompt.name` (prompts/get), `mcp.resource.uri` (resources/read, subscribe,
 *   unsubscribe), `network.transport` (`pipe` for stdio, `tcp` for HTTP), `janus.mcp.era`
 *   (`legacy` or `modern`), and on failure `error.type` (the JSON-RPC code, `tool_error`, or
 *   the failure's name), `rpc.response.status_code` and an ERROR status.
 * - Context: the client writes `traceparent`, `tracestate` and `baggage` into
 *   `params._meta` with the propagator; the server reads them back and makes the client's
 *   span the parent of its own, in both eras; handlers run in the server span's context.
 * - Metrics: `mcp.server.operation.duration`, `mcp.client.operation.duration`,
 *   `mcp.server.session.duration` (seconds), `janus.mcp.server.requests.active`,
 *   `janus.mcp.server.sessions` and `janus.mcp.server.listen_streams`.
 *
 * Needs `@opentelemetry/api` (an optional peer dependency); nothing else in janus-mcp
 * imports this entry or the API, so programs that do not use it load neither.
 *
 * @module janus-mcp/otel
 */
export { instrumentServer, serverTracing } from './server.js';
export { instrumentClient, clientTracing } from './client.js';
export type { TelemetryOptions } from './options.js';
