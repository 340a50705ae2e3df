/**
 * How many calls one instance of a fleet is given at once when the user gave
 * no number: chosen from how fast the instance returns them.
 *
 * The rule is TCP Vegas' (compare each round's mean call with the fastest
 * call, which waited in no queue) measured in time rather than in packets:
 * the time a call waits in the instance's queue, `mean − fastest`, should be
 * about as long as the fleet's quickest call. Shorter: the instance's workers
 * idle between the client's files (a fast instance frees a worker sooner than
 * a loaded client turns a file round), so it is given one more. Much longer:
 * files only wait there, where a faster instance would have returned them,
 * and would hold up the end of the batch, so it is given one fewer. Because
 * the target is one time for the whole fleet, an instance that returns files
 * faster holds more of them: the same wait is more of its files.
 */

/** A round's queue wait above this many times the fleet's quickest call narrows the instance. */
const NARROW_ABOVE = 3;

/** Calls at once for one instance of a fleet: fixed, or following its measured speed (see the file's comment). */
export class AutoWidth {
  #current: number;
  readonly #max: number;
  /** Whether the width follows measured speed; else it stays at its start. */
  readonly #auto: boolean;
  /** The fastest call seen: one that waited in no queue on the instance. */
  #fastest = Infinity;
  #calls = 0;
  #totalMs = 0;
  /** Calls of the round that took the instance's last free slot (the client kept it at its width). */
  #full = 0;

  /**
   * `start` calls at once at first (the containers' `/version` and `/Status`
   * report no worker count, so the caller's default), then chosen from measured
   * speed between 1 and `max`; with `max` ≤ `start`, fixed at `start`.
   */
  constructor(start: number, max: number) {
    this.#current = start;
    this.#max = Math.max(start, max);
    this.#auto = max > start;
  }

  /** Calls at once now. */
  get current(): number {
    return this.#current;
  }

  /** Whether the width follows measured speed (else it stays at its start). */
  get automatic(): boolean {
    return this.#auto;
  }

  /** The most calls at once it may be given. */
  get max(): number {
    return this.#max;
  }

  /** The fastest call seen on the instance, ms (Infinity before the first). */
  get fastestMs(): number {
    return this.#fastest;
  }

  /**
   * One call returned after `ms`; `full`: it took the instance's last free
   * slot. Once per round (as many calls as the width), the width may change by
   * one against `quickestMs`, the fastest call of any instance of the fleet.
   * Returns the width.
   */
  observe(ms: number, full: boolean, quickestMs: number): number {
    this.#fastest = Math.min(this.#fastest, ms);
    if (!this.#auto) return this.#current;
    this.#calls++;
    this.#totalMs += ms;
    if (full) this.#full++;
    if (this.#calls < this.#current) return this.#current;
    const waitMs = this.#totalMs / this.#calls - this.#fastest;
    // Widen only when the client kept the instance at its width: a round of free slots says nothing of more.
    if (waitMs < quickestMs && 2 * this.#full >= this.#calls && this.#current < this.#max) this.#current++;
    else if (waitMs > NARROW_ABOVE * quickestMs && this.#current > 1) this.#current--;
    this.#calls = 0;
    this.#totalMs = 0;
    this.#full = 0;
    return this.#current;
  }
}
