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
 * expected end — the shortest recent time after the job was last seen queued, or after the
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
 * When recent jobs took visibly different times (the middle one more than
 * 10 % longer than the shortest), a job may end anywhere in a wide window,
 * and the schedule places its requests by the law of the recent times: a
 * log-normal fitted to them (mean and σ of their logarithm). For a request
 * worth c ms of lateness, the requests that minimise mean lateness + c ×
 * mean requests come at a density √(h(t) / 2c) per ms, h = f / (1 − F) the
 * hazard (Keller's optimal checking schedule: a gap of g at t costs each job
 * ending in it g / 2 late on average, and each request is paid only by the
 * jobs still running). Counted so, the slow jobs pay for every request the
 * many fast ones no longer need, and 90 % of jobs no longer fit in 10
 * requests; counting each request as the slowest jobs do gives √(f / 2c), dense
 * only where jobs end but late for the slow ones. The schedule takes the
 * middle, √(f / (2c (1 − F)^0.75)) with c = 2 % of the law's median, and
 * sends the next request where that density has added up to one. For σ 0.5
 * that is one request before the first jobs end (at 12 % of them), then gaps
 * of ~17 % of the median around it, slowly wider past it. In seeded
 * simulations (`poll-schedule.test.ts`; σ 0.5, 40 jobs a series, 3 ms a
 * request) it notices jobs 39.8 ms late on average (median 32.7 ms) with 4.42
 * requests, 90 % at ≤ 9; the age-share schedule it replaced (gaps of 18 % of
 * the age, wider off the middle time) 48.7 ms (median 37.8 ms) with 4.65,
 * 90 % at ≤ 8. Simulated the same way (median 340 ms, 200 series), pure
 * Keller (power 1, c = 2.5 %) was as late on average with as few requests, but
 * its slow jobs took more (at 2 s and 8 ms a request, 90 % at ≤ 10 and one
 * series of 60 jobs in five over it); √f (power 0, c = 1 %) had as good a
 * median but a mean of 92 ms: it noticed the slow jobs far too late.
 *
 * When files wait for this job's slot (`urgent`), every millisecond its end
 * is noticed late is a slot, and with as many jobs as the service's workers a
 * worker, left idle: the schedule then sends sparse requests (from a third of
 * the shortest time, doubling) until the expected end, and past it gaps of 7 % of the middle
 * time, wider by √(age / middle) past the middle and by (age / longest)² past
 * the longest, buying a smaller notice delay with more status requests only
 * where it pays. Nearly even gaps, not a share of the age: the best requests
 * for log-normal times (minimum mean lateness for a given number of requests,
 * by dynamic programming over the true law, `bench/lib/pipeline-model.mjs`)
 * are nearly even past the shortest time, because the chance that a job still
 * running ends in the next millisecond hardly falls with its age there (σ 0.5,
 * median 300 ms: 143 ms, then 36, 30, 27, 25, 24, 23 ms apart). In that model
 * (8 workers, 200 jobs, σ 0.5) this sends 9.0 requests a job and notices its
 * end 22.7 ms late on average, where 6 % of the age sent 9.6 and was 23.6 ms
 * late; at σ 1, 13.4 requests and 43 ms against 13.5 and 57 ms.
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
import { type LogNormal, pollDensity } from './poll-law';

/** First dense step as a share of the expected time, and its floor in ms. */
const STEP_SHARE = 0.02;
const MIN_STEP_MS = 5;
/** Growth of the sparse gaps before the expected end. */
const EARLY_FACTOR = 2;
/** Spread (middle / shortest recent time) above which job times count as varied. */
const VARIED_SPREAD = 1.1;
/** For varied times: the first sparse gap as a share of the shortest time … */
const VARIED_EARLY_SHARE = 1 / 3;
/** … and when files wait for the job's slot: each gap as a share of the middle time. */
const URGENT_GAP_SHARE = 0.07;
/** … widened by (age / longest)^this past the longest. */
const PAST_LONGEST_POWER = 2;
/** Varied times, no files waiting: what one status request is worth in ms of lateness, as a share of the law's median … */
const REQUEST_COST_SHARE = 0.02;
/** For an expectation without a fitted law: the expected range of 8 normal draws, in σ (ln longest − ln shortest ≈ 2.85 σ). */
const RANGE_OF_8_IN_SIGMA = 2.85;

/**
 * What the client expects of the next job, from its recent ones: the shortest
 * time (when to start looking), the middle one (where most jobs end) and the longest.
 */
export interface Expectation {
  shortestMs: number;
  typicalMs: number;
  longestMs: number;
  /**
   * The log-normal law fitted to the recent times: mean and standard deviation
   * of their natural logarithm (ln ms). Without it, the law is centred on
   * `typicalMs` with σ from the shortest-to-longest range.
   */
  logMean?: number;
  logSigma?: number;
}

export class PollSchedule {
  readonly #policy: Required<Omit<PollPolicy, 'adaptive'>>;
  #expected: Expectation | undefined;
  #law: LogNormal | undefined;
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
   * @param expected what recent jobs took (a number: every job took that long); undefined for the blind schedule.
   * @param phase in [0, 1): blind delays are scaled by `factor^-phase` (see the class comment).
   */
  constructor(policy: Required<Omit<PollPolicy, 'adaptive'>>, expected: Expectation | number | undefined, phase = 0) {
    this.#policy = policy;
    this.#expected = usable(expected);
    this.#law = lawOf(this.#expected);
    this.#blind = policy.initialDelayMs * policy.factor ** -phase;
    this.#early = this.#firstEarly();
    this.#step = this.#firstStep();
  }

  /** Whether the schedule has no expected duration to go by. */
  get blind(): boolean {
    return this.#expected === undefined;
  }

  /**
   * The client has learned the jobs' duration while this one waited blind:
   * plan the rest around `expected`. `cutShort`: the wait `next()` last asked
   * for was interrupted to learn it, so it counts only as far as the clock went.
   */
  learn(expected: Expectation | number | undefined, cutShort: boolean): void {
    this.#expected = usable(expected);
    this.#law = lawOf(this.#expected);
    if (cutShort) this.#slept = this.#sleptBefore;
    this.#early = this.#firstEarly();
    this.#step = this.#firstStep();
  }

  get #varied(): boolean {
    const e = this.#expected;
    return e !== undefined && e.typicalMs > e.shortestMs * VARIED_SPREAD;
  }

  #firstEarly(): number {
    const { initialDelayMs } = this.#policy;
    return this.#varied ? Math.max(initialDelayMs, this.#expected!.shortestMs * VARIED_EARLY_SHARE) : initialDelayMs;
  }

  #firstStep(): number {
    return Math.max(MIN_STEP_MS, (this.#expected?.shortestMs ?? 0) * STEP_SHARE);
  }

  /** Time since the wait began, ms. */
  #elapsed(): number {
    return Math.max(Date.now() - this.#started, this.#slept);
  }

  /**
   * The delay before the next status request, ms (and records it as waited).
   * `urgent`: files wait for this job's slot (see the class comment).
   */
  next(urgent = false): number {
    let d: number;
    let atEnd = false;
    if (this.#expected === undefined || this.#queued) {
      d = Math.min(this.#blind, this.#policy.maxDelayMs);
      this.#blind *= this.#policy.factor;
    } else if (this.#varied && !urgent) {
      d = this.#lawStep(this.#law!);
    } else {
      const end = this.#anchor + this.#expected.shortestMs;
      const untilDense = end - this.#elapsed();
      if (untilDense > MIN_STEP_MS) {
        d = Math.min(this.#early, untilDense);
        this.#early *= EARLY_FACTOR;
      } else if (this.#polledAt < end) {
        // No request since the expected end (e.g. just learned it, past it): one at the end.
        d = Math.max(0, untilDense);
        atEnd = true;
      } else {
        d = this.#varied ? this.#urgentStep(this.#expected) : this.#denseStep();
      }
    }
    d = Math.round(d);
    this.#sleptBefore = this.#slept;
    this.#slept = this.#elapsed() + d;
    // The request at the end counts as made when it is planned, not only when its answer is
    // observed: one refused (429, no status to observe) would otherwise be asked for again with
    // no wait, and on a clock that has not moved, again and again.
    if (atEnd) this.#polledAt = this.#slept;
    return d;
  }

  /** Constant times: fine steps from just after the expected end, growing by `factor`. */
  #denseStep(): number {
    const d = Math.min(this.#step, this.#policy.maxDelayMs);
    this.#step *= this.#policy.factor;
    return d;
  }

  /**
   * Varied times, no files waiting: the next request where the poll density
   * of the fitted law has added up to one request (see the class comment).
   */
  #lawStep(law: LogNormal): number {
    const { maxDelayMs } = this.#policy;
    const age = Math.max(0, this.#elapsed() - this.#anchor);
    const costMs = REQUEST_COST_SHARE * Math.exp(law.mu);
    // ∫ pollDensity du = 1 from the age on, in steps of 1 % of the age (at least 1 ms).
    let t = age;
    let owed = 1;
    while (t - age < maxDelayMs) {
      const dt = Math.max(1, 0.01 * t);
      const density = pollDensity(law, t + dt / 2, costMs);
      if (density * dt >= owed) return Math.max(MIN_STEP_MS, Math.min(maxDelayMs, t + owed / density - age));
      owed -= density * dt;
      t += dt;
    }
    return maxDelayMs;
  }

  /** Varied times with files waiting: near-even gaps from the middle time, slowly wider with age (see the class comment). */
  #urgentStep({ typicalMs, longestMs }: Expectation): number {
    const age = this.#elapsed() - this.#anchor;
    const widen = Math.sqrt(Math.max(1, age / typicalMs)) * (age > longestMs ? (age / longestMs) ** PAST_LONGEST_POWER : 1);
    return Math.max(MIN_STEP_MS, Math.min(this.#policy.maxDelayMs, URGENT_GAP_SHARE * typicalMs * widen));
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

function usable(expected: Expectation | number | undefined): Expectation | undefined {
  const e = typeof expected === 'number' ? { shortestMs: expected, typicalMs: expected, longestMs: expected } : expected;
  if (e === undefined || !positive(e.shortestMs)) return undefined;
  const typicalMs = Math.max(e.shortestMs, positive(e.typicalMs) ? e.typicalMs : 0);
  const kept = { shortestMs: e.shortestMs, typicalMs, longestMs: Math.max(typicalMs, positive(e.longestMs) ? e.longestMs : 0) };
  return e.logSigma !== undefined && e.logMean !== undefined ? { ...kept, logMean: e.logMean, logSigma: e.logSigma } : kept;
}

function lawOf(e: Expectation | undefined): LogNormal | undefined {
  if (e === undefined) return undefined;
  const mu = e.logMean !== undefined && Number.isFinite(e.logMean) ? e.logMean : Math.log(e.typicalMs);
  const fitted = e.logSigma !== undefined && Number.isFinite(e.logSigma) && e.logSigma > 0 ? e.logSigma : Math.log(e.longestMs / e.shortestMs) / RANGE_OF_8_IN_SIGMA;
  // Never narrower than the spread that makes times count as varied: a law fitted to a few
  // close times would put every request in a sliver and none where a stray job ends.
  return { mu, sigma: Math.max(fitted, Math.log(VARIED_SPREAD)) };
}

function positive(ms: number): boolean {
  return Number.isFinite(ms) && ms > 0;
}

/** How many recent completed jobs the expectation looks at. */
const HISTORY = 8;

/**
 * What a client learns from its completed jobs: the shortest processing time
 * (`timeTaken`) among the last 8, and their middle one. The shortest, not the mean, is when to start looking: polling early
 * for a slower job costs a request or two, noticing a faster one late costs
 * its whole lead (and the first job of a run is often the slowest).
 */
export class JobDurations {
  readonly #recent: number[] = [];
  #blindWaits = 0;
  readonly #learners = new Set<() => void>();

  /** The shortest, middle (upper median) and longest of the recent times; undefined before the first completed job. */
  get expected(): Expectation | undefined {
    if (this.#recent.length === 0) return undefined;
    const sorted = [...this.#recent].sort((a, b) => a - b);
    const range = { shortestMs: sorted[0]!, typicalMs: sorted[sorted.length >> 1]!, longestMs: sorted.at(-1)! };
    if (sorted.length < 2) return range;
    const logs = sorted.map(Math.log);
    const logMean = logs.reduce((a, b) => a + b, 0) / logs.length;
    const logSigma = Math.sqrt(logs.reduce((a, x) => a + (x - logMean) ** 2, 0) / (logs.length - 1));
    return { ...range, logMean, logSigma };
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
