/**
 * When to send the next status request of one job.
 *
 * Without history the schedule is blind: `initialDelayMs`, growing by
 * `factor`, capped at `maxDelayMs`. A blind schedule must trade lateness for
 * requests: noticing a finished job within 15 % of its time needs gaps of
 * 15 % of the elapsed time, ~25 requests to span 0.3 s to 10 s.
 *
 * Jobs of one batch usually take about as long as each other, so a client
 * that has seen jobs complete knows roughly when the next one will: the
 * schedule then sends few, sparse requests (gaps doubling) until the
 * expected end — `expectedMs` after the job was last seen queued, or after the
 * wait began — and then polls densely (steps from 5 % of the expected time,
 * growing by `factor`, capped at `maxDelayMs`). The expected time is the
 * shortest recent one and the job started before the wait began (when the
 * service took the start request), so a request at the expected end usually
 * finds it done: polling before it would only cost requests, and with the
 * 20 ms floor on steps, a short job's end would fall between two of them. A job still
 * PENDING is polled blind, since its start is unknown; once it is seen
 * PROCESSING the expected end counts from the last PENDING answer.
 *
 * Time is the larger of the wall clock and the sum of the waits, so the
 * schedule is the same under fake timers that do not advance the clock.
 */
import type { PollPolicy } from './options';

/** First dense step as a share of the expected time, and its floor in ms. */
const STEP_SHARE = 0.05;
const MIN_STEP_MS = 20;
/** Growth of the sparse gaps before the expected end. */
const EARLY_FACTOR = 2;

export class PollSchedule {
  readonly #policy: Required<Omit<PollPolicy, 'adaptive'>>;
  readonly #expectedMs: number | undefined;
  readonly #started = Date.now();
  #slept = 0;
  #blind: number;
  #early: number;
  #step: number;
  #anchor = 0;
  #queued = false;

  /** @param expectedMs learned duration of a job, ms; undefined for the blind schedule. */
  constructor(policy: Required<Omit<PollPolicy, 'adaptive'>>, expectedMs: number | undefined) {
    this.#policy = policy;
    this.#expectedMs = expectedMs !== undefined && Number.isFinite(expectedMs) && expectedMs > 0 ? expectedMs : undefined;
    this.#blind = policy.initialDelayMs;
    this.#early = policy.initialDelayMs;
    this.#step = this.#firstStep();
  }

  #firstStep(): number {
    return Math.max(MIN_STEP_MS, (this.#expectedMs ?? 0) * STEP_SHARE);
  }

  /** Time since the wait began, ms. */
  #elapsed(): number {
    return Math.max(Date.now() - this.#started, this.#slept);
  }

  /** The delay before the next status request, ms (and records it as waited). */
  next(): number {
    const { maxDelayMs, factor } = this.#policy;
    let d: number;
    if (this.#expectedMs === undefined || this.#queued) {
      d = Math.min(this.#blind, maxDelayMs);
      this.#blind *= factor;
    } else {
      const untilDense = this.#anchor + this.#expectedMs - this.#elapsed();
      if (untilDense > MIN_STEP_MS) {
        d = Math.min(this.#early, untilDense);
        this.#early *= EARLY_FACTOR;
      } else {
        d = Math.min(this.#step, maxDelayMs);
        this.#step *= factor;
      }
    }
    d = Math.round(d);
    this.#slept = this.#elapsed() + d;
    return d;
  }

  /** Tell the schedule what the last status answer said. */
  observe(status: string): void {
    this.#queued = status === 'PENDING';
    if (this.#queued) {
      // Not started yet: its end is at least the expected time from now.
      this.#anchor = this.#elapsed();
      this.#step = this.#firstStep();
    }
  }
}

/** How many recent completed jobs the expectation looks at. */
const HISTORY = 8;

/**
 * What a client learns from its completed jobs: the shortest processing time
 * (`timeTaken`) among the last 8. The shortest, not the mean: polling early
 * for a slower job costs a request or two, noticing a faster one late costs
 * its whole lead (and the first job of a run is often the slowest).
 */
export class JobDurations {
  readonly #recent: number[] = [];

  /** Expected processing time of the next job, ms; undefined before the first completed job. */
  get expectedMs(): number | undefined {
    return this.#recent.length === 0 ? undefined : Math.min(...this.#recent);
  }

  /** Record a COMPLETED job's `timeTaken` (seconds); other values are ignored. */
  record(timeTakenSeconds: unknown): void {
    if (typeof timeTakenSeconds !== 'number' || !Number.isFinite(timeTakenSeconds) || timeTakenSeconds <= 0) return;
    this.#recent.push(timeTakenSeconds * 1000);
    if (this.#recent.length > HISTORY) this.#recent.shift();
  }
}
