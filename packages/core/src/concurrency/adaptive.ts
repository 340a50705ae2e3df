/**
 * Adaptive concurrency (AIMD, as TCP's congestion control): the number of
 * jobs a client keeps in the service is halved when the service answers 429
 * (too many jobs or requests), and raised by one after a full round of jobs
 * that finished without one. Retrying each refused request alone keeps the
 * overload; lowering the in-flight count ends it, and the additive increase
 * finds the limit again when the service keeps up (or the account's limit
 * rises). Runtime-agnostic: any host's job queue can read `current`.
 */

export interface AdaptiveLimitOptions {
  /** The most jobs at once (the user's `-j`); also where it starts. */
  max: number;
  /** The fewest jobs at once. Default 1. */
  min?: number;
  /** Factor applied on congestion. Default 0.5. */
  decrease?: number;
  /**
   * 429s within this long after a decrease belong to the same overload (the
   * requests already out when it was seen) and lower the limit only once, ms.
   * Default 2,000 (the emulator's and most services' Retry-After is 1 s).
   */
  holdMs?: number;
  /** Clock, ms. Default `Date.now`. */
  now?: () => number;
}

/** One change of the limit, for reports of how it converged. */
export interface LimitChange {
  /** Ms since the limit was made. */
  atMs: number;
  limit: number;
  why: 'congested' | 'kept-up';
}

export class AdaptiveLimit {
  #current: number;
  readonly #min: number;
  readonly #max: number;
  readonly #decrease: number;
  readonly #holdMs: number;
  readonly #now: () => number;
  readonly #t0: number;
  #lastDecrease = -Infinity;
  /** Jobs finished since the last change: a round is `current` of them. */
  #round = 0;
  readonly #listeners = new Set<(limit: number) => void>();
  /** Every change, oldest first (at most 1,000 kept). */
  readonly changes: LimitChange[] = [];

  constructor(options: AdaptiveLimitOptions) {
    const max = Math.floor(options.max);
    if (!(max >= 1)) throw new RangeError(`max must be an integer ≥ 1 (got ${String(options.max)})`);
    this.#max = max;
    this.#min = Math.min(max, Math.max(1, Math.floor(options.min ?? 1)));
    this.#decrease = options.decrease ?? 0.5;
    if (!(this.#decrease > 0 && this.#decrease < 1)) throw new RangeError(`decrease must be between 0 and 1 (got ${String(options.decrease)})`);
    this.#holdMs = options.holdMs ?? 2_000;
    this.#now = options.now ?? Date.now;
    this.#t0 = this.#now();
    this.#current = max;
  }

  /** Jobs allowed in the service now. */
  get current(): number {
    return this.#current;
  }

  /** Called with the new limit after each change; returns the unsubscribe function. */
  onChange(listener: (limit: number) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The service refused work (429): lower the limit, once per overload. */
  congested(): void {
    const now = this.#now();
    if (now - this.#lastDecrease < this.#holdMs) return;
    this.#lastDecrease = now;
    this.#set(Math.max(this.#min, Math.floor(this.#current * this.#decrease)), 'congested');
  }

  /**
   * A job finished: after a whole round of them without congestion, allow one
   * more. `atLimit` false (the host had fewer jobs out than allowed) does not
   * count: a limit the host does not use says nothing about the service.
   */
  finished(atLimit = true): void {
    if (!atLimit || this.#now() - this.#lastDecrease < this.#holdMs) return;
    if (++this.#round < this.#current) return;
    if (this.#current < this.#max) this.#set(this.#current + 1, 'kept-up');
    this.#round = 0;
  }

  #set(limit: number, why: LimitChange['why']): void {
    this.#round = 0;
    if (limit === this.#current) return;
    this.#current = limit;
    if (this.changes.length >= 1_000) this.changes.shift();
    this.changes.push({ atMs: this.#now() - this.#t0, limit, why });
    for (const l of this.#listeners) l(limit);
  }
}
