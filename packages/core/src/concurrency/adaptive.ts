/**
 * Adaptive concurrency: how many jobs a client keeps in the service.
 *
 * A refused job start (`refused`, 429 on `GET /pfc`) says exactly where the
 * account's limit is: the service holds our accepted, unfinished jobs and
 * would take no more, so the limit drops to that count at once (not a blind
 * halving, which undershoots and then climbs back into the wall). Any other
 * 429 (`congested`, a request rate) halves it, once per overload.
 *
 * Upward, one more job after a full round of jobs finished without a
 * refusal, as in AIMD; but a level that was refused is probed again only
 * after `probeRounds` clean rounds, doubling each time it is refused again
 * (up to `maxProbeRounds`), so the limit settles just under the account's
 * limit and provokes a refusal only now and then to notice a raised limit.
 * A clean round at a level forgets the refusals at or below it (they were
 * passing overloads or injected faults). Runtime-agnostic: any host's job
 * queue can read `current`.
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
  /** Clean rounds before a refused level is tried again (doubling per repeat refusal). Default 4. */
  probeRounds?: number;
  /** The most clean rounds between two tries of a refused level. Default 64. */
  maxProbeRounds?: number;
  /** Clock, ms. Default `Date.now`. */
  now?: () => number;
}

/** One change of the limit, for reports of how it converged. */
export interface LimitChange {
  /** Ms since the limit was made. */
  atMs: number;
  limit: number;
  why: 'congested' | 'refused' | 'kept-up';
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
  /** Clean rounds at the current level. */
  #cleanRounds = 0;
  /** Levels the service refused, with the clean rounds to wait before trying each again. */
  readonly #refusedAt = new Map<number, number>();
  readonly #probeRounds: number;
  readonly #maxProbeRounds: number;
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
    this.#probeRounds = Math.max(1, Math.floor(options.probeRounds ?? 4));
    this.#maxProbeRounds = Math.max(this.#probeRounds, Math.floor(options.maxProbeRounds ?? 64));
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
   * The service refused a job start while it held `held` of our jobs (the
   * accepted ones not yet finished): the limit drops to that (never below
   * `min`, never up), and the level above it is tried again only after more
   * clean rounds each time it is refused.
   */
  refused(held: number): void {
    const level = Math.max(this.#min, Math.min(this.#current, Math.floor(held)));
    const over = Math.max(0, Math.floor(held)) + 1;
    const before = this.#refusedAt.get(over);
    this.#refusedAt.set(over, before === undefined ? this.#probeRounds : Math.min(this.#maxProbeRounds, before * 2));
    this.#set(level, 'refused');
    // Jobs finishing now were started at the old level: the next round starts afresh.
    this.#round = 0;
    this.#cleanRounds = 0;
  }

  /**
   * A job finished: after a whole round of them without congestion, allow one
   * more (after more rounds when that level was refused). `atLimit` false (the
   * host had fewer jobs out than allowed) does not count: a limit the host
   * does not use says nothing about the service.
   */
  finished(atLimit = true): void {
    if (!atLimit || this.#now() - this.#lastDecrease < this.#holdMs) return;
    if (++this.#round < this.#current) return;
    this.#round = 0;
    this.#cleanRounds++;
    // A whole round held at this level: it and every level below it are fine.
    for (const level of [...this.#refusedAt.keys()]) if (level <= this.#current) this.#refusedAt.delete(level);
    if (this.#current >= this.#max) return;
    if (this.#cleanRounds < (this.#refusedAt.get(this.#current + 1) ?? 1)) return;
    this.#set(this.#current + 1, 'kept-up');
  }

  #set(limit: number, why: LimitChange['why']): void {
    this.#round = 0;
    this.#cleanRounds = 0;
    if (limit === this.#current) return;
    this.#current = limit;
    if (this.changes.length >= 1_000) this.changes.shift();
    this.changes.push({ atMs: this.#now() - this.#t0, limit, why });
    for (const l of this.#listeners) l(limit);
  }
}
