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
 * wait began — and then polls densely (steps from 2 % of the expected time,
 * at least 5 ms, growing by `factor`, capped at `maxDelayMs`). The expected
 * time is the shortest recent one and the job started before the wait began
 * (when the service took the start request), so a request at the expected end
 * usually finds it done; when it does not, the job is a hair late and the
 * small first steps notice it soon (with a 20 ms floor, a 0.3 s job missed at
 * its expected end was noticed ~25 ms late). Counting from the start request
 * instead was measured worse: the request at the expected end then came too
 * early for most jobs. A job still
 * PENDING is polled blind, since its start is unknown; once it is seen
 * PROCESSING the expected end counts from the last PENDING answer.
 *
 * Jobs of one client waiting blind at the same time (the first wave of a
 * batch) spread their polls: each scales its blind delays by `factor^-phase`,
 * with phases 0, 0.618, 0.236, … (the golden-ratio sequence, even for any
 * number of jobs), so together they poll a finer grid than one job does,
 * each with no more requests than the plain blind schedule. The first of
 * them seen COMPLETED teaches the client the duration, and `waitForJob` wakes
 * the others to re-plan with it (`learn`): those already past the expected
 * end poll at once.
 *
 * Time is the larger of the wall clock and the sum of the waits, so the
 * schedule is the same under fake timers that do not advance the clock.
 */
import type { PollPolicy } from './options';

/** First dense step as a share of the expected time, and its floor in ms. */
const STEP_SHARE = 0.02;
const MIN_STEP_MS = 5;
/** Growth of the sparse gaps before the expected end. */
const EARLY_FACTOR = 2;

export class PollSchedule {
  readonly #policy: Required<Omit<PollPolicy, 'adaptive'>>;
  #expectedMs: number | undefined;
  readonly #started = Date.now();
  #slept = 0;
  /** `#slept` before the current wait, for a wait cut short (`learn`). */
  #sleptBefore = 0;
  /** When the last status request went out (elapsed ms), -1 before the first. */
  #polledAt = -1;
  #blind: number;
  #early: number;
  #step: number;
  #anchor = 0;
  #queued = false;

  /**
   * @param expectedMs learned duration of a job, ms; undefined for the blind schedule.
   * @param phase in [0, 1): blind delays are scaled by `factor^-phase` (see the class comment).
   */
  constructor(policy: Required<Omit<PollPolicy, 'adaptive'>>, expectedMs: number | undefined, phase = 0) {
    this.#policy = policy;
    this.#expectedMs = usable(expectedMs);
    this.#blind = policy.initialDelayMs * policy.factor ** -phase;
    this.#early = policy.initialDelayMs;
    this.#step = this.#firstStep();
  }

  /** Whether the schedule has no expected duration to go by. */
  get blind(): boolean {
    return this.#expectedMs === undefined;
  }

  /**
   * The client has learned the jobs' duration while this one waited blind:
   * plan the rest around `expectedMs`. `cutShort`: the wait `next()` last asked
   * for was interrupted to learn it, so it counts only as far as the clock went.
   */
  learn(expectedMs: number | undefined, cutShort: boolean): void {
    this.#expectedMs = usable(expectedMs);
    if (cutShort) this.#slept = this.#sleptBefore;
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
      const end = this.#anchor + this.#expectedMs;
      const untilDense = end - this.#elapsed();
      if (untilDense > MIN_STEP_MS) {
        d = Math.min(this.#early, untilDense);
        this.#early *= EARLY_FACTOR;
      } else if (this.#polledAt < end) {
        // No request since the expected end (e.g. just learned it, past it): one at the end.
        d = Math.max(0, untilDense);
      } else {
        d = Math.min(this.#step, maxDelayMs);
        this.#step *= factor;
      }
    }
    d = Math.round(d);
    this.#sleptBefore = this.#slept;
    this.#slept = this.#elapsed() + d;
    return d;
  }

  /** Tell the schedule what the last status answer said. */
  observe(status: string): void {
    this.#polledAt = this.#slept;
    this.#queued = status === 'PENDING';
    if (this.#queued) {
      // Not started yet: its end is at least the expected time from now.
      this.#anchor = this.#elapsed();
      this.#step = this.#firstStep();
    }
  }
}

function usable(ms: number | undefined): number | undefined {
  return ms !== undefined && Number.isFinite(ms) && ms > 0 ? ms : undefined;
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
  #blindWaits = 0;
  readonly #learners = new Set<() => void>();

  /** Expected processing time of the next job, ms; undefined before the first completed job. */
  get expectedMs(): number | undefined {
    return this.#recent.length === 0 ? undefined : Math.min(...this.#recent);
  }

  /** Record a COMPLETED job's `timeTaken` (seconds); other values are ignored. */
  record(timeTakenSeconds: unknown): void {
    if (typeof timeTakenSeconds !== 'number' || !Number.isFinite(timeTakenSeconds) || timeTakenSeconds <= 0) return;
    const first = this.#recent.length === 0;
    this.#recent.push(timeTakenSeconds * 1000);
    if (this.#recent.length > HISTORY) this.#recent.shift();
    if (first) for (const wake of [...this.#learners]) wake();
  }

  /** The phase of the next blind wait: 0, 0.618, 0.236, … (golden-ratio sequence). */
  nextBlindPhase(): number {
    return (this.#blindWaits++ * GOLDEN) % 1;
  }

  /** Call `wake` when the first duration is learned; returns the unsubscribe. */
  onFirstLearned(wake: () => void): () => void {
    this.#learners.add(wake);
    return () => this.#learners.delete(wake);
  }
}

/** The golden ratio's fractional part: its multiples mod 1 spread evenly over [0, 1) for any count. */
const GOLDEN = (Math.sqrt(5) - 1) / 2;
