/**
 * Scenario 8's report (bench/lib/scale-out-report.ts) from made-up samples: every configuration's
 * ratio to one process without Redis is a median of ratios within a repetition, the sizing table
 * turns the Redis CPU per request by role into what one core (one shard) and a whole cluster
 * carry, and the text and Markdown show it with the note on which keys share a shard. Also the
 * Redis CPU by role between two readings and the `--redis` option.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Sample, ScaleOutConfig } from '../../bench/lib/context.js';
import { redisCpuSpent } from '../../bench/lib/redis-kinds.js';
import {
  configsOf,
  scaleOutMarkdown,
  scaleOutReport,
  scaleOutRows,
  scaleOutSizing,
  scaleOutText,
} from '../../bench/lib/scale-out-report.js';
import { parseRedisKinds, scaleOutConfigs } from '../../bench/scenarios/scale-out.js';

function sample(impl: ScaleOutConfig, rep: number, step: string, metric: string, value: number | null, diagnostic = false): Sample {
  return { scenario: '8', step, metric, unit: metric.includes('/s') ? '/s' : 'µs', better: 'lower', impl, rep, value, diagnostic };
}

/** The Redis CPU per request of one configuration and repetition: the sum, and each role apart (diagnostic). */
function redisSamples(
  impl: ScaleOutConfig,
  rep: number,
  step: string,
  metric: string,
  roles: { primaries: number; replicas: number; sentinels: number; busiest: number },
): Sample[] {
  return [
    sample(impl, rep, step, metric, roles.primaries + roles.replicas + roles.sentinels),
    sample(impl, rep, step, `${metric}: primaries`, roles.primaries, true),
    sample(impl, rep, step, `${metric}: replicas`, roles.replicas, true),
    sample(impl, rep, step, `${metric}: sentinels`, roles.sentinels, true),
    sample(impl, rep, step, `${metric}: busiest primary`, roles.busiest, true),
  ];
}

test('every ratio to one process without Redis is the median of ratios within a repetition, for every configuration of the run', () => {
  const step = 'tools/call 64 conn';
  const metric = 'requests/s';
  // Per repetition: one 100, 200, 400; single:1 50, 150, 100 (ratios 0.5, 0.75, 0.25: median 0.5,
  // while the ratio of the medians would be 100/200); cluster:N 300, 200, 400 (3, 1, 1: median 1).
  const samples = [
    ...[100, 200, 400].map((v, rep) => sample('one', rep, step, metric, v)),
    ...[50, 150, 100].map((v, rep) => sample('single:1', rep, step, metric, v)),
    ...[300, 200, 400].map((v, rep) => sample('cluster:N', rep, step, metric, v)),
  ];
  assert.deepEqual(configsOf(samples), ['one', 'single:1', 'cluster:N'], '`one` first, then each kind as measured');
  const [row] = scaleOutRows(samples);
  assert.equal(row!.values.one, 200);
  assert.equal(row!.values['single:1'], 100);
  assert.equal(row!.ratios['single:1'], 0.5);
  assert.equal(row!.ratios['cluster:N'], 1);
  assert.equal(row!.ratios.one, undefined, 'no ratio of `one` to itself');
  assert.equal(row!.ratios['sentinel:1'], undefined, 'a configuration not run has no ratio');
});

test('the sizing table gives, per kind and request, the Redis CPU per 1,000 requests by role and what one core and a whole cluster carry', () => {
  const samples: Sample[] = [];
  for (const rep of [0, 1]) {
    // Plain 2026-07-28 calls, 10,000/s: Redis only idles, 1 ms of CPU per second on the primaries and 1 on the replicas.
    samples.push(sample('cluster:N', rep, 'tools/call 64 conn', 'requests/s', 10_000));
    samples.push(
      ...redisSamples('cluster:N', rep, 'tools/call 64 conn', 'Redis CPU/request', {
        primaries: 0.1,
        replicas: 0.1,
        sentinels: 0,
        busiest: 0.04,
      }),
    );
    // Sessions spread over 3 shards, 1,000/s: net of the idle (1 µs per request on the primaries,
    // 1 on the replicas, a third of 1 on the busiest primary), 30 µs on the primaries in all, 10 on the busiest.
    samples.push(sample('cluster:N', rep, 'legacy tools/call 64 sessions', 'requests/s', 1000));
    samples.push(
      ...redisSamples('cluster:N', rep, 'legacy tools/call 64 sessions', 'Redis CPU/request', {
        primaries: 31,
        replicas: 13,
        sentinels: 0,
        busiest: 10 + 1 / 3,
      }),
    );
    // MRTR claims on one shard, 500/s: the busiest primary does all of it.
    samples.push(sample('cluster:N', rep, 'MRTR 8 clients', 'round trips/s', 500));
    samples.push(
      ...redisSamples('cluster:N', rep, 'MRTR 8 clients', 'Redis CPU/round trip', {
        primaries: 42,
        replicas: 18,
        sentinels: 0,
        busiest: 40 + 2 / 3,
      }),
    );
    // Sentinel measured with one process only, and no plain calls: its figures come from there, as measured.
    samples.push(
      ...redisSamples('sentinel:1', rep, 'MRTR 8 clients', 'Redis CPU/round trip', {
        primaries: 20,
        replicas: 8,
        sentinels: 5,
        busiest: 20,
      }),
    );
    samples.push(
      ...redisSamples('sentinel:1', rep, 'list changes on 4 streams', 'Redis CPU/change', {
        primaries: 50,
        replicas: 25,
        sentinels: 1,
        busiest: 50,
      }),
    );
    // One process on the cluster too: the N-worker figures are the ones sized.
    samples.push(
      ...redisSamples('cluster:1', rep, 'MRTR 8 clients', 'Redis CPU/round trip', {
        primaries: 99,
        replicas: 99,
        sentinels: 0,
        busiest: 99,
      }),
    );
  }
  const sizing = scaleOutSizing(samples);
  const row = (kind: string, request: string) => sizing.find((r) => r.kind === kind && r.request.startsWith(request));

  const plain = row('cluster', '2026-07-28');
  assert.ok(plain);
  assert.equal(plain.touchesRedis, false);
  assert.ok(Math.abs(plain.all! - 0.2) < 1e-9, 'as measured: the idle spread over the calls');
  assert.equal(plain.perCore, null, 'a request that sends Redis nothing is not bounded by it');
  assert.equal(plain.wholeCluster, null);

  const sessions = row('cluster', '2025-11-25');
  assert.ok(sessions);
  assert.equal(sessions.config, 'cluster:N');
  const near = (a: number | null, b: number, what: string) => assert.ok(a !== null && Math.abs(a - b) < 1e-6, `${what}: ${a} is not ${b}`);
  near(sessions.all, 42, 'all, net of 2 µs of idle per request');
  near(sessions.primaries, 30, 'primaries, net of idle');
  near(sessions.replicas, 12, 'replicas, net of idle');
  near(sessions.busiestPrimary, 10, 'the busiest primary, net of one primary’s idle');
  assert.equal(Math.round(sessions.perCore!), 33_333, 'one shard: 1,000,000 / the primaries’ µs');
  assert.equal(Math.round(sessions.wholeCluster!), 100_000, 'the cluster: until its busiest shard is full');

  const claims = row('cluster', 'MRTR');
  assert.ok(claims);
  near(claims.all, 56, 'N workers, not the one process, net of 4 µs of idle per round trip');
  assert.equal(Math.round(claims.perCore!), 25_000);
  assert.equal(Math.round(claims.wholeCluster!), 25_000, 'keys on one shard: the cluster carries what that shard does');

  const sentinelClaims = row('sentinel', 'MRTR');
  assert.ok(sentinelClaims);
  assert.equal(sentinelClaims.config, 'sentinel:1');
  assert.equal(sentinelClaims.all, 33, 'sentinels count in the sum');
  assert.equal(sentinelClaims.sentinels, 5);
  assert.equal(sentinelClaims.perCore, 50_000);
  assert.equal(sentinelClaims.wholeCluster, null, 'only a cluster has shards');
  assert.equal(row('sentinel', 'list change')!.perCore, 20_000);
  assert.equal(row('single', 'MRTR'), undefined, 'no row for a kind not measured');
  assert.equal(row('sentinel', '2025-11-25'), undefined, 'no row for a request not measured');

  const report = scaleOutReport(samples);
  assert.deepEqual(
    report.idle.map((i) => [i.kind, i.config, i.msPerSecond]),
    [
      ['cluster', 'cluster:N', 2],
      ['sentinel', 'sentinel:1', null],
    ],
  );
  for (const out of [scaleOutText(report, 2), scaleOutMarkdown(report, 2)]) {
    assert.match(out, /Redis Cluster\s*\|?\s*2025-11-25 session request\s*\|?\s*2 workers, Redis Cluster/);
    assert.match(out, /33,333/);
    assert.match(out, /100,000/);
    assert.match(out, /no Redis command/);
    assert.match(out, /\{<prefix>mrtr\}/);
    assert.match(out, /\{<prefix>registry\}/);
    assert.match(out, /1 process, Sentinel/);
    assert.match(out, /Redis Cluster: 2\.00 ms of CPU per second/);
  }
  assert.match(scaleOutMarkdown(report, 2), /^\| Redis \| Request \| Measured on \|/m);
});

test('the Redis CPU between two readings is summed over every process of a kind, and by role, with the busiest primary', () => {
  const pids = { primaries: [1, 2, 3], replicas: [4, 5, 6], sentinels: [7] };
  const before = new Map([1, 2, 3, 4, 5, 6, 7].map((pid) => [pid, 10]));
  const after = new Map([
    [1, 10.5],
    [2, 12],
    [3, 10.25],
    [4, 10.1],
    [5, 10.2],
    [6, 10.3],
    [7, 10.05],
  ]);
  const spent = redisCpuSpent(pids, before, after);
  assert.equal(spent.primaries, 2.75);
  assert.ok(Math.abs(spent.replicas - 0.6) < 1e-9);
  assert.ok(Math.abs(spent.sentinels - 0.05) < 1e-9);
  assert.ok(Math.abs(spent.all - 3.4) < 1e-9);
  assert.equal(spent.busiestPrimary, 2);
});

test('--redis picks the kinds of Redis (all three by default), and each kind adds one process and N workers', () => {
  assert.deepEqual(parseRedisKinds(undefined), ['single', 'cluster', 'sentinel']);
  assert.deepEqual(parseRedisKinds('sentinel, single'), ['single', 'sentinel']);
  assert.throws(() => parseRedisKinds('single,valkey'), /unknown --redis kind "valkey" \(single, cluster, sentinel\)/);
  assert.throws(() => parseRedisKinds(','), /at least one kind/);
  assert.deepEqual(scaleOutConfigs(['cluster']), ['one', 'cluster:1', 'cluster:N']);
});
