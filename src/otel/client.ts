/**
 * The client side: one CLIENT span per logical request (a call of the `Client` API, whatever
 * the era does inside it: input_required rounds, a renewed session), made by a client
 * middleware, and the trace context written into the request's `params._meta` with the
 * propagator, so that the server's span is its child in either era (mcp.md §Context
 * propagation).
 */
import { type Attributes, type Context, context, SpanKind, trace, ValueType } from '@opentelemetry/api';
import type { Client, ClientMiddleware, ClientMiddlewareContext, ClientNext } from '../client/index.js';
import {
  ATTR,
  DURATION_BUCKETS,
  metricAttributes,
  networkTransport,
  type Operation,
  spanAttributes,
  spanName,
  targetOf,
} from './attributes.js';
import { metaSetter } from './carrier.js';
import { type Instruments, instrumentsOf, jsonOf, type TelemetryOptions } from './options.js';
import { clientFailure, recordFailure, recordResult } from './outcome.js';

/**
 * A client middleware that traces every request the client sends and records
 * `mcp.client.operation.duration`. Give it to `connect()` to trace the era detection too:
 *
 * ```ts
 * const client = await connect(url, { middleware: [clientTracing()] });
 * ```
 */
export function clientTracing(options: TelemetryOptions = {}): ClientMiddleware {
  const instruments = instrumentsOf(options);
  const duration = instruments.meter.createHistogram('mcp.client.operation.duration', {
    description: 'The duration of an MCP request as observed on the client, from when it was sent until its final response.',
    unit: 's',
    valueType: ValueType.DOUBLE,
    advice: { explicitBucketBoundaries: [...DURATION_BUCKETS] },
  });
  return (ctx, next) => traced(instruments, duration, ctx, next);
}

/**
 * Instruments a client: `clientTracing(options)` around every request sent from now on (the
 * requests `connect()` already sent are not traced; for those, pass `clientTracing()` in
 * `ConnectOptions.middleware` instead). Add it before other middleware so that its span
 * covers them.
 */
export function instrumentClient(client: Client, options: TelemetryOptions = {}): void {
  client.use(clientTracing(options));
}

interface Recorder {
  record(value: number, attributes?: Attributes): void;
}

async function traced(t: Instruments, duration: Recorder, ctx: ClientMiddlewareContext, next: ClientNext): Promise<unknown> {
  const { method } = ctx;
  const params = ctx.params;
  const op: Operation = {
    method,
    target: targetOf(method, params),
    protocolVersion: ctx.protocolVersion,
    transport: networkTransport(ctx.transport),
  };
  const attributes = spanAttributes(op, params, { requestId: undefined, sessionId: ctx.sessionId, era: ctx.era });
  const metric = metricAttributes(op);
  const url = ctx.serverUrl;
  if (url !== undefined) {
    const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
    attributes[ATTR.serverAddress] = metric[ATTR.serverAddress] = url.hostname;
    attributes[ATTR.serverPort] = metric[ATTR.serverPort] = port;
  }
  if (t.captureToolPayloads && method === 'tools/call') {
    const json = jsonOf(params.arguments);
    if (json !== undefined) attributes[ATTR.toolArguments] = json;
  }
  const active = context.active();
  const span = t.tracer.startSpan(spanName(method, op.target), { kind: SpanKind.CLIENT, attributes }, active);
  const traceContext = trace.setSpan(active, span);
  inject(t, ctx, traceContext);
  const start = performance.now();
  try {
    const result = await context.with(traceContext, next);
    recordResult(span, metric, method, result, t.captureToolPayloads);
    return result;
  } catch (e) {
    recordFailure(span, metric, clientFailure(e), e);
    throw e;
  } finally {
    span.end();
    duration.record((performance.now() - start) / 1000, metric);
  }
}

/** Writes the span's context (and baggage) into `params._meta`: a copy, the caller's params are left alone. */
function inject(t: Instruments, ctx: ClientMiddlewareContext, traceContext: Context): void {
  const carrier: Record<string, unknown> = {};
  t.propagator.inject(traceContext, carrier, metaSetter);
  // Nothing to add (no propagator registered, or a span that is not valid): the params stay as they are.
  for (const _ in carrier) {
    ctx.params = { ...ctx.params, _meta: { ...ctx.params._meta, ...carrier } };
    return;
  }
}
