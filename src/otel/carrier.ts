/**
 * Trace context in `params._meta` (mcp.md §Context propagation, SEP-414): the propagator's
 * keys (`traceparent`, `tracestate`, `baggage` for W3C) are written unprefixed, next to the
 * request's other `_meta` keys, and read back from there. `_meta` reaches the server in both
 * eras (on 2026-07-28 it also carries the envelope), so one carrier serves both.
 */
import type { TextMapGetter, TextMapSetter } from '@opentelemetry/api';

type Carrier = Record<string, unknown>;

export const metaGetter: TextMapGetter<Carrier> = {
  keys: (carrier) => Object.keys(carrier),
  // Own string values only: `_meta` came off the wire, and a key like `constructor` must not read Object.prototype.
  get: (carrier, key) => {
    if (!Object.hasOwn(carrier, key)) return undefined;
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
};

export const metaSetter: TextMapSetter<Carrier> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};
