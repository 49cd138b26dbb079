/**
 * The OpenTelemetry SDK as a deployment has it, for measuring what tracing costs: a tracer
 * provider with a batch processor, a meter provider with a periodic reader, and exporters that
 * drop what they get (so the cost measured is the instrumentation's and the SDK's, not a
 * network's). Loaded only by the runs that trace (bench/servers/janus.ts `--variant otel`,
 * bench/in-process.ts).
 */
import { context, propagation } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, ExportResultCode, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { AggregationTemporality, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';

const dropped = { code: ExportResultCode.SUCCESS };

/** Providers whose exporters drop everything. */
export function droppingProviders(): { tracerProvider: BasicTracerProvider; meterProvider: MeterProvider } {
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new BatchSpanProcessor({ export: (_spans, done) => done(dropped), shutdown: async () => {} })],
  });
  const meterProvider = new MeterProvider({
    readers: [
      new PeriodicExportingMetricReader({
        exporter: {
          export: (_metrics, done) => done(dropped),
          forceFlush: async () => {},
          shutdown: async () => {},
          selectAggregationTemporality: () => AggregationTemporality.CUMULATIVE,
        },
        exportIntervalMillis: 10_000,
      }),
    ],
  });
  return { tracerProvider, meterProvider };
}

/** The globals the SDK's Node setup registers: the AsyncLocalStorage context manager and W3C propagation. */
export function registerContextAndPropagation(): void {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
}
