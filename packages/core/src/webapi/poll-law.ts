/**
 * The log-normal law the poll schedule fits to recent job times, and where it
 * spends its requests (`PollSchedule`'s class comment derives the density).
 */

/** How much a request counts that only jobs still running pay: (1 − F)^this. */
const SURVIVOR_POWER = 0.75;

/** A log-normal law: the mean and standard deviation of ln(time in ms). */
export interface LogNormal {
  mu: number;
  sigma: number;
}

/**
 * Requests per ms at age `t` (`PollSchedule`'s class comment): √(f(t) / (2 c (1 − F(t))^0.75)),
 * f and F the law's density and distribution, c a request's cost in ms.
 */
export function pollDensity(law: LogNormal, t: number, costMs: number): number {
  return Math.sqrt(pdf(law, t) / (2 * costMs * survival(law, t) ** SURVIVOR_POWER));
}

/** The law's density at `t` ms. */
function pdf({ mu, sigma }: LogNormal, t: number): number {
  if (t <= 0) return 0;
  const z = (Math.log(t) - mu) / sigma;
  return Math.exp(-z * z / 2) / Math.sqrt(2 * Math.PI) / (sigma * t);
}

/** 1 − F(t), floored where the tail's approximation runs out. */
function survival({ mu, sigma }: LogNormal, t: number): number {
  return t <= 0 ? 1 : Math.max(1e-12, upperTail((Math.log(t) - mu) / sigma));
}

/** 1 − Φ(z), the standard normal upper tail (Abramowitz–Stegun 7.1.26, absolute error < 1.5e-7). */
function upperTail(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const k = 1 / (1 + 0.3275911 * x);
  const erfc = ((((1.061405429 * k - 1.453152027) * k + 1.421413741) * k - 0.284496736) * k + 0.254829592) * k * Math.exp(-x * x);
  return z >= 0 ? erfc / 2 : 1 - erfc / 2;
}
