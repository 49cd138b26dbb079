/** What the instrumentation is configured with, and what it makes of it once. */
import {
  type Meter,
  type MeterProvider,
  type TextMapPropagator,
  type Tracer,
  type TracerProvider,
  metrics,
  propagation,
  trace,
} from '@opentelemetry/api';

/** Options of `instrumentServer`, `instrumentClient`, `serverTracing` and `clientTracing`. */
export interface TelemetryOptions {
  /** Where spans go. Default: the global tracer provider (`trace.getTracerProvider()`), a no-op until one is registered. */
  tracerProvider?: TracerProvider;
  /** Where metrics go. Default: the global meter provider (`metrics.getMeterProvider()`), a no-op until one is registered. */
  meterProvider?: MeterProvider;
  /**
   * How trace context and baggage are written to and read from `params._meta`. Default: the
   * global propagation API (`propagation`), which uses the registered propagator (none until
   * one is registered, e.g. by the OpenTelemetry Node SDK: W3C trace context and baggage).
   */
  propagator?: TextMapPropagator;
  /**
   * Record `gen_ai.tool.call.arguments` and `gen_ai.tool.call.result` (as JSON strings) on
   * tools/call spans. They may hold sensitive data. Default false.
   */
  captureToolPayloads?: boolean;
}

/** The instrumentation scope every tracer and meter is created under. */
export const SCOPE_NAME = 'janus-mcp';
export const SCOPE_VERSION = '0.1.0';

/** The pieces a middleware needs, made once when it is created (never per request). */
export interface Instruments {
  readonly tracer: Tracer;
  readonly meter: Meter;
  readonly propagator: TextMapPropagator;
  readonly captureToolPayloads: boolean;
}

export function instrumentsOf(options: TelemetryOptions = {}): Instruments {
  const tracerProvider = options.tracerProvider ?? trace.getTracerProvider();
  const meterProvider = options.meterProvider ?? metrics.getMeterProvider();
  return {
    tracer: tracerProvider.getTracer(SCOPE_NAME, SCOPE_VERSION),
    meter: meterProvider.getMeter(SCOPE_NAME, SCOPE_VERSION),
    propagator: options.propagator ?? propagation,
    captureToolPayloads: options.captureToolPayloads === true,
  };
}

/** A value as a JSON string for an opt-in payload attribute; undefined when it cannot be one. */
export function jsonOf(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}
