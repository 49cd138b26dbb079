/**
 * OpenTelemetry test rig: the SDK's in-memory span exporter behind a BasicTracerProvider, a
 * MeterProvider with a reader collected on demand, W3C trace context and baggage propagators,
 * all passed to the instrumentation explicitly. The one global is the context manager (the
 * context API has no other way): `useContextManager()` registers AsyncLocalStorage for a
 * file's tests and removes it after them.
 */
import { after, before } from 'node:test';
import { context, type TextMapPropagator, trace, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { DataPointType, MeterProvider, type MetricData, MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { type Client, connect, type ConnectOptions } from '../../src/client/index.js';
import type { TelemetryOptions } from '../../src/otel/index.js';
import type { Server } from '../../src/server/index.js';
import { connectInMemory, type MessageRecorder } from '../../src/testing/index.js';
import { serveHttp } from '../../src/transports/http/index.js';

export function useContextManager(): void {
  before(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  });
  after(() => context.disable());
}

/** A reader whose `collect()` the test calls when it wants the numbers. */
class OnDemandReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

export class Telemetry {
  readonly exporter = new InMemorySpanExporter();
  readonly tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(this.exporter)] });
  readonly reader = new OnDemandReader();
  readonly meterProvider = new MeterProvider({ readers: [this.reader] });
  readonly propagator: TextMapPropagator = new CompositePropagator({
    propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
  });
  /** The application's own tracer (the test's and the handlers' spans). */
  readonly app: Tracer = this.tracerProvider.getTracer('app');

  options(extra: TelemetryOptions = {}): TelemetryOptions {
    return { tracerProvider: this.tracerProvider, meterProvider: this.meterProvider, propagator: this.propagator, ...extra };
  }

  spans(): ReadableSpan[] {
    return this.exporter.getFinishedSpans();
  }

  /** The one finished span named `name` of `kind` (fails if there is not exactly one). */
  span(name: string, kind: number): ReadableSpan {
    const found = this.spans().filter((s) => s.name === name && s.kind === kind);
    if (found.length !== 1) {
      throw new Error(
        `expected one span "${name}" of kind ${kind}, found ${found.length}: ${this.spans()
          .map((s) => `${s.name}/${s.kind}`)
          .join(', ')}`,
      );
    }
    return found[0]!;
  }

  async metrics(): Promise<MetricData[]> {
    const { resourceMetrics, errors } = await this.reader.collect();
    if (errors.length) throw new AggregateError(errors, 'metric collection failed');
    return resourceMetrics.scopeMetrics.flatMap((s) => s.metrics);
  }

  async metric(name: string): Promise<MetricData | undefined> {
    return (await this.metrics()).find((m) => m.descriptor.name === name);
  }

  async shutdown(): Promise<void> {
    await this.tracerProvider.shutdown();
    await this.meterProvider.shutdown();
  }
}

/** A histogram's data points' counts by one attribute's value; a sum's or gauge's values likewise. */
export function pointsBy(metric: MetricData | undefined, key: string): Map<unknown, number> {
  const out = new Map<unknown, number>();
  if (metric === undefined) return out;
  for (const p of metric.dataPoints) {
    const at = p.attributes[key];
    const v = metric.dataPointType === DataPointType.HISTOGRAM ? (p.value as { count: number }).count : (p.value as number);
    out.set(at, (out.get(at) ?? 0) + v);
  }
  return out;
}

export type Mode = 'memory' | 'http';
export const MODES: readonly Mode[] = ['memory', 'http'];
export const ERAS = [
  { era: 'legacy', version: '2025-11-25' },
  { era: 'modern', version: '2026-07-28' },
] as const;

export interface Pair {
  readonly client: Client;
  /** The wire, in memory only. */
  readonly recorder: MessageRecorder | undefined;
  close(): Promise<void>;
}

/** A Janus client connected to `server` in memory or over real HTTP on 127.0.0.1, in the era asked for. */
export async function pair(server: Server, mode: Mode, options: ConnectOptions): Promise<Pair> {
  if (mode === 'memory') {
    const { client, recorder, close } = await connectInMemory(server, options);
    return { client, recorder, close };
  }
  const http = await serveHttp(server);
  try {
    const client = await connect(http.url, options);
    return {
      client,
      recorder: undefined,
      close: async () => {
        await client.close();
        await http.close();
      },
    };
  } catch (e) {
    await http.close();
    throw e;
  }
}

/** The span's parent span id, or undefined for a root. */
export function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

export const traceOf = (span: ReadableSpan): string => span.spanContext().traceId;
export const idOf = (span: ReadableSpan): string => span.spanContext().spanId;

/** The active span's ids, as a handler sees them. */
export function activeIds(): { traceId: string; spanId: string } | undefined {
  const sc = trace.getSpanContext(context.active());
  return sc && { traceId: sc.traceId, spanId: sc.spanId };
}
