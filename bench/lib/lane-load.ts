/**
 * Closed-loop load over lanes: a lane (a 2025-11-25 session, say) has one request in flight
 * and sends its requests over its connections in turn, so one session's requests can reach
 * several server processes. `runLoad` (http.ts) is the one-lane-per-connection case.
 */
import type { HttpConnection, HttpResponse, LoadResult } from './http.js';

export interface Lane {
  /** Used in turn; a connection belongs to one lane only. */
  connections: HttpConnection[];
  /** Renders the lane's next request (a fresh JSON-RPC id each time). */
  next: () => string;
}

export interface LaneLoadOptions {
  lanes: Lane[];
  check: (res: HttpResponse) => boolean;
  warmupMs: number;
  durationMs: number;
  onMeasureStart?: () => void;
  onMeasureEnd?: () => void;
}

export function runLaneLoad(o: LaneLoadOptions): Promise<LoadResult> {
  return new Promise((resolve) => {
    let phase: 'warm' | 'measure' | 'stop' = 'warm';
    let lat = new Float64Array(1 << 16);
    let n = 0;
    let errors = 0;
    let firstError: string | undefined;
    let t0 = 0;
    let t1 = 0;
    let inflight = 0;
    let cpu0 = process.cpuUsage();
    let genCpu = 0;
    const finish = (): void => {
      for (const lane of o.lanes) for (const c of lane.connections) c.onResponse = () => undefined;
      resolve({ requests: n, seconds: (t1 - t0) / 1000, latencies: lat.subarray(0, n), errors, firstError, generatorCpu: genCpu });
    };
    const starters = o.lanes.map((lane) => {
      let turn = 0;
      let sentAt = 0;
      const send = (): void => {
        inflight++;
        sentAt = performance.now();
        lane.connections[turn]!.send(lane.next());
        turn = (turn + 1) % lane.connections.length;
      };
      for (const conn of lane.connections) {
        conn.onResponse = (err, res) => {
          const now = performance.now();
          inflight--;
          if (err || !res || !o.check(res)) {
            errors++;
            firstError ??= err ? err.message : `status ${res?.status}: ${res?.body.toString('utf8').slice(0, 500)}`;
          } else if (phase === 'measure') {
            if (n === lat.length) {
              const bigger = new Float64Array(lat.length * 2);
              bigger.set(lat);
              lat = bigger;
            }
            lat[n++] = now - sentAt;
          }
          if (phase === 'stop' || err) {
            if (inflight === 0) finish();
            return;
          }
          send();
        };
      }
      return send;
    });
    setTimeout(() => {
      o.onMeasureStart?.();
      phase = 'measure';
      cpu0 = process.cpuUsage();
      t0 = performance.now();
      setTimeout(() => {
        t1 = performance.now();
        const used = process.cpuUsage(cpu0);
        genCpu = (used.user + used.system) / 1000 / (t1 - t0);
        phase = 'stop';
        o.onMeasureEnd?.();
        if (inflight === 0) finish();
      }, o.durationMs);
    }, o.warmupMs);
    for (const start of starters) start();
  });
}
