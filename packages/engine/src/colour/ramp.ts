/** The soft thresholds the planner's rules are written in. */

/** 0 at or below `from`, rising linearly to 1 at `to` (from < to); a falling ramp is `ramp(-x, -from, -to)`. */
export function ramp(x: number, from: number, to: number): number {
  return Math.min(1, Math.max(0, (x - from) / (to - from)));
}
