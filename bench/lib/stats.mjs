/** Small statistics and formatting helpers for figures. */

/** Median of a list of numbers (NaN when empty). */
export function median(xs) {
  return percentile(xs, 50);
}

/** Linear-interpolated percentile `p` (0–100) of a list of numbers (NaN when empty). */
export function percentile(xs, p) {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const k = ((s.length - 1) * p) / 100;
  const lo = Math.floor(k);
  const hi = Math.ceil(k);
  return s[lo] + (s[hi] - s[lo]) * (k - lo);
}

export function mean(xs) {
  return xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** A number with `digits` decimals, or "–" for NaN/undefined. */
export function fmt(x, digits = 1) {
  return x === undefined || x === null || Number.isNaN(x) ? '–' : Number(x).toFixed(digits);
}

/** Bytes as MB (10^6) or KB with one decimal. */
export function fmtBytes(n) {
  if (n === undefined || n === null || Number.isNaN(n)) return '–';
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} MB`;
  return `${(n / 1e3).toFixed(1)} KB`;
}

/** Milliseconds since `t0` (a `performance.now()` value). */
export const since = (t0) => performance.now() - t0;
