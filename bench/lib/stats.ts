/** Small statistics helpers. */

export function median(xs: readonly number[]): number {
  const v = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  const m = v.length >> 1;
  return v.length % 2 ? v[m]! : (v[m - 1]! + v[m]!) / 2;
}

/** The q-quantile (0..1) of latencies, nearest-rank. Sorts in place. */
export function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i]!;
}

/** p50 and p99 of latencies, given whole or in parts (the slices of a step measured in turns). */
export function latencySummary(lat: Float64Array | readonly Float64Array[]): { p50: number; p99: number } {
  const parts = lat instanceof Float64Array ? [lat] : lat;
  const s = new Float64Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    s.set(p, at);
    at += p.length;
  }
  s.sort();
  return { p50: quantile(s, 0.5), p99: quantile(s, 0.99) };
}
