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

export function latencySummary(lat: Float64Array): { p50: number; p99: number } {
  const s = Float64Array.from(lat).sort();
  return { p50: quantile(s, 0.5), p99: quantile(s, 0.99) };
}
