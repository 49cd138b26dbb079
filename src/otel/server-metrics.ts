/**
 * The server's session metrics: `mcp.server.session.duration` (mcp.md §Metrics), from the
 * session hooks, and two Janus gauges read from `server.stats()` when metrics are collected:
 * `janus.mcp.server.sessions` (open legacy sessions) and `janus.mcp.server.listen_streams`
 * (open 2026-07-28 subscriptions/listen streams).
 */
import { type Attributes, type ObservableResult, ValueType } from '@opentelemetry/api';
import type { Server } from '../server/index.js';
import { ATTR, DURATION_BUCKETS, networkTransport } from './attributes.js';
import type { Instruments } from './options.js';

export function observeServer(server: Server, { meter }: Instruments): void {
  const duration = meter.createHistogram('mcp.server.session.duration', {
    description: 'The duration of an MCP session as observed on the server.',
    unit: 's',
    valueType: ValueType.DOUBLE,
    advice: { explicitBucketBoundaries: [...DURATION_BUCKETS] },
  });
  // A session has one handle for its whole life; held weakly, a handle whose end was never heard of is not kept.
  const opened = new WeakMap<object, number>();
  server.onSession({
    onInitialized(session) {
      opened.set(session, performance.now());
    },
    onClosed(session) {
      const start = opened.get(session);
      if (start === undefined) return;
      opened.delete(session);
      const attributes: Attributes = {};
      if (session.protocolVersion !== undefined) attributes[ATTR.protocolVersion] = session.protocolVersion;
      const transport = networkTransport(session.transport);
      if (transport !== undefined) attributes[ATTR.networkTransport] = transport;
      duration.record((performance.now() - start) / 1000, attributes);
    },
  });

  // The gauges hold the server weakly: a server dropped without being closed is not kept alive by the meter.
  const ref = new WeakRef(server);
  const sessions = meter.createObservableGauge('janus.mcp.server.sessions', {
    description: 'Open legacy MCP sessions.',
    unit: '{session}',
    valueType: ValueType.INT,
  });
  const streams = meter.createObservableGauge('janus.mcp.server.listen_streams', {
    description: 'Open 2026-07-28 subscriptions/listen streams.',
    unit: '{stream}',
    valueType: ValueType.INT,
  });
  const observeSessions = (result: ObservableResult) => {
    const s = ref.deref();
    if (s === undefined) return void sessions.removeCallback(observeSessions);
    result.observe(s.stats().sessions);
  };
  const observeStreams = (result: ObservableResult) => {
    const s = ref.deref();
    if (s === undefined) return void streams.removeCallback(observeStreams);
    result.observe(s.stats().listenStreams);
  };
  sessions.addCallback(observeSessions);
  streams.addCallback(observeStreams);
}
