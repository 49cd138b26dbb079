/**
 * The server side: one SERVER span per inbound request, in both eras and on every transport,
 * made by a middleware (src/server/middleware.ts), so it sees every request the server
 * answers, errors included. Its parent is the trace context the client put in `params._meta`;
 * an ambient context (an HTTP server span from HTTP instrumentation, say) becomes a link
 * (mcp.md §Context propagation). The rest of the chain and the handler run inside the span's
 * context, so spans the handler makes are its children, and baggage from the client is there.
 */
import { type Attributes, type Context, context, type Link, SpanKind, trace, ValueType } from '@opentelemetry/api';
import { ErrorCode } from '../errors/index.js';
import type { Middleware, MiddlewareContext, Next, Server } from '../server/index.js';
import { CLIENT_REQUEST_METHODS } from '../protocol/index.js';
import {
  ATTR,
  DURATION_BUCKETS,
  OTHER_ERROR as OTHER,
  metricAttributes,
  networkTransport,
  type Operation,
  spanAttributes,
  spanName,
  targetOf,
} from './attributes.js';
import { metaGetter } from './carrier.js';
import { type Instruments, instrumentsOf, jsonOf, type TelemetryOptions } from './options.js';
import { recordFailure, recordResult, serverFailure } from './outcome.js';
import { observeServer } from './server-metrics.js';

const INVALID_PARAMS = String(ErrorCode.InvalidParams);
const METHOD_NOT_FOUND = String(ErrorCode.MethodNotFound);

/** The requests an MCP server answers (the protocol's catalogue): any other method is named `_OTHER` where cardinality matters. */
const KNOWN_METHODS: ReadonlySet<string> = new Set(CLIENT_REQUEST_METHODS);

/** One in-flight count per low-cardinality attribute set. */
interface InFlight {
  readonly attributes: Attributes;
  count: number;
}

/** The server's per-request instruments, made once per middleware. */
class ServerTelemetry {
  readonly duration;
  /**
   * Requests in flight, counted here and observed when metrics are collected: an
   * UpDownCounter would hash its attributes twice per request in the SDK, the largest part
   * of what tracing costs a fast tool call. Keyed by known method and transport, so bounded.
   */
  private readonly inFlight = new Map<string, InFlight>();

  constructor(readonly instruments: Instruments) {
    const { meter } = instruments;
    this.duration = meter.createHistogram('mcp.server.operation.duration', {
      description: 'The duration of an MCP request as observed on the server, from its arrival until its response.',
      unit: 's',
      valueType: ValueType.DOUBLE,
      advice: { explicitBucketBoundaries: [...DURATION_BUCKETS] },
    });
    meter
      .createObservableUpDownCounter('janus.mcp.server.requests.active', {
        description: 'MCP requests the server is handling (subscriptions/listen streams included, until they end).',
        unit: '{request}',
        valueType: ValueType.INT,
      })
      .addCallback((result) => {
        for (const entry of this.inFlight.values()) result.observe(entry.count, entry.attributes);
      });
  }

  /** Counts a request in; returns its entry, to count it out. */
  started(op: Operation): InFlight {
    const key = op.transport === undefined ? op.method : `${op.method}\u0000${op.transport}`;
    let entry = this.inFlight.get(key);
    if (entry === undefined) this.inFlight.set(key, (entry = { attributes: activeAttributes(op), count: 0 }));
    entry.count++;
    return entry;
  }
}

/**
 * A server middleware that traces every request (notifications pass through untraced) and
 * records `mcp.server.operation.duration` and `janus.mcp.server.requests.active`. For
 * composing your own chain; `instrumentServer` adds it and the session metrics for you.
 *
 * Register it first (`server.use(serverTracing())` before other middleware) so that its span
 * covers them and their refusals.
 */
export function serverTracing(options: TelemetryOptions = {}): Middleware {
  return tracingWith(new ServerTelemetry(instrumentsOf(options)));
}

/**
 * Instruments a server: `serverTracing(options)` added to its middleware, plus
 * `mcp.server.session.duration` (from the session hooks), `janus.mcp.server.sessions` and
 * `janus.mcp.server.listen_streams` (observed from `server.stats()`). Call it before
 * `server.use` adds other middleware, so that the spans cover them.
 *
 * @example
 * ```ts
 * import { instrumentServer } from 'janus-mcp/otel';
 * const server = createServer({ name: 'orders', version: '1.0.0' });
 * instrumentServer(server); // the global tracer, meter and propagator
 * ```
 */
export function instrumentServer(server: Server, options: TelemetryOptions = {}): void {
  const instruments = instrumentsOf(options);
  server.use(tracingWith(new ServerTelemetry(instruments)));
  observeServer(server, instruments);
}

function tracingWith(telemetry: ServerTelemetry): Middleware {
  return (ctx, next) => (ctx.kind === 'request' ? traced(telemetry, ctx, next) : next());
}

async function traced(t: ServerTelemetry, ctx: MiddlewareContext, next: Next): Promise<unknown> {
  const { tracer, propagator, captureToolPayloads } = t.instruments;
  const { method, params } = ctx;
  const target = targetOf(method, params);
  // Span and metric names come from a known set: a client's made-up method must not make a new series.
  const known = KNOWN_METHODS.has(method);
  const op: Operation = {
    method: known ? method : OTHER,
    target,
    protocolVersion: ctx.protocolVersion,
    transport: networkTransport(ctx.transport),
  };
  const active = context.active();
  const parent = ctx.meta === undefined ? active : propagator.extract(active, ctx.meta, metaGetter);
  const attributes = spanAttributes(op, params, { requestId: ctx.id, sessionId: ctx.sessionId, era: ctx.era });
  // The span keeps the method as sent (mcp.method.name is required); only its name is bounded.
  if (!known) attributes[ATTR.method] = method;
  if (captureToolPayloads && method === 'tools/call') setJson(attributes, ATTR.toolArguments, params.arguments);
  const span = tracer.startSpan(
    spanName(op.method, target),
    { kind: SpanKind.SERVER, attributes, links: ambientLink(active, parent) },
    parent,
  );
  let metric = metricAttributes(op);
  const inFlight = t.started(op);
  const start = performance.now();
  try {
    const result = await context.with(trace.setSpan(parent, span), next);
    recordResult(span, metric, method, result, captureToolPayloads);
    return result;
  } catch (e) {
    const failure = serverFailure(e, ctx.protocolVersion, ctx.era);
    // A tool or prompt the server does not have (or bad params) keeps its name out of the metrics: clients choose it.
    if (target !== undefined && (failure.statusCode === INVALID_PARAMS || failure.statusCode === METHOD_NOT_FOUND)) {
      metric = metricAttributes({ ...op, target: undefined });
    }
    recordFailure(span, metric, failure, e);
    throw e;
  } finally {
    span.end();
    t.duration.record((performance.now() - start) / 1000, metric);
    inFlight.count--;
  }
}

/**
 * The ambient span, linked when the request has a parent of its own from `_meta`: MCP and
 * transport contexts are independent (mcp.md §Context propagation, the note on HTTP).
 */
function ambientLink(active: Context, parent: Context): Link[] | undefined {
  if (parent === active) return undefined;
  const ambient = trace.getSpanContext(active);
  if (ambient === undefined || !trace.isSpanContextValid(ambient)) return undefined;
  const remote = trace.getSpanContext(parent);
  if (remote === undefined || remote.spanId === ambient.spanId) return undefined;
  return [{ context: ambient }];
}

function setJson(attributes: Attributes, key: string, value: unknown): void {
  const json = jsonOf(value);
  if (json !== undefined) attributes[key] = json;
}

/** The in-flight counter's attributes: the method and the transport, nothing that changes on completion. */
function activeAttributes(op: Operation): Attributes {
  return op.transport === undefined ? { [ATTR.method]: op.method } : { [ATTR.method]: op.method, [ATTR.networkTransport]: op.transport };
}
