/**
 * Job slots: at most `size` jobs in the service at once, started in plan
 * order. Files upload ahead in parallel, but a file asks for a slot only
 * after every earlier file has had one (or is done without one), so jobs
 * start in the order of the plan whatever order the uploads finish in, as
 * they did when each file held its slot from upload to write. A wait ends
 * with `UserAbortError` when its signal aborts. With an `AdaptiveLimit` the
 * number of slots follows it: fewer after 429s (slots given back are not
 * handed on while over the limit), more when it rises again. A slot given
 * back `'refused'` (the service refused the job's start) tells the limit how
 * many jobs the service held then: the other slots' holders.
 */
import { type AdaptiveLimit, UserAbortError } from '@pfc/core';

interface Waiter {
  ready: () => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

export class JobSlots {
  #inUse = 0;
  #granted = 0;
  readonly #limit: () => number;
  readonly #adaptive: AdaptiveLimit | undefined;
  readonly #queue: Waiter[] = [];
  /** Lowest plan position whose turn has not passed. */
  #turn = 0;
  readonly #passed = new Set<number>();
  readonly #turnWaiters = new Map<number, Waiter>();
  readonly #watchers: { order: number; resolve: () => void }[] = [];

  constructor(size: number | AdaptiveLimit) {
    if (typeof size === 'number') {
      this.#limit = () => size;
      this.#adaptive = undefined;
    } else {
      const adaptive = size;
      this.#adaptive = adaptive;
      this.#limit = () => adaptive.current;
      adaptive.onChange(() => this.#handOn());
    }
  }

  /** Jobs holding a slot now. */
  get inUse(): number {
    return this.#inUse;
  }

  /** Slots handed out so far: jobs sent to the service (a refused one asks again, and counts again). */
  get granted(): number {
    return this.#granted;
  }

  /** Files waiting for a free slot (their turn has come). */
  get waiting(): number {
    return this.#queue.length;
  }

  /**
   * Wait for the turn of plan position `order`, then for a free slot; resolves
   * to the function that gives the slot back (idempotent; `'refused'` when the
   * job was not taken, see the class). Passes the turn; a file whose turn has
   * passed (asking again after a refusal) queues for the next free slot.
   */
  async acquire(order: number, signal?: AbortSignal): Promise<(outcome?: 'refused') => void> {
    if (order > this.#turn) await this.#wait(signal, (w) => this.#turnWaiters.set(order, w), () => this.#turnWaiters.delete(order));
    if (this.#inUse < this.#limit() && this.#queue.length === 0) {
      this.#inUse++;
      this.pass(order);
      return this.#releaser();
    }
    const slot = this.#wait(signal, (w) => this.#queue.push(w), (w) => {
      const i = this.#queue.indexOf(w);
      if (i >= 0) this.#queue.splice(i, 1);
    });
    // In the queue (first come, first served): the next file may ask.
    this.pass(order);
    await slot;
    return this.#releaser();
  }

  /** Resolves once the turn of plan position `order` has passed (it asked for a slot, or is done). */
  passed(order: number): Promise<void> {
    if (order < this.#turn) return Promise.resolve();
    return new Promise((resolve) => this.#watchers.push({ order, resolve }));
  }

  /** The file at `order` is done without (another) slot: later files need not wait for it. Idempotent. */
  pass(order: number): void {
    if (order < this.#turn) return;
    this.#passed.add(order);
    while (this.#passed.delete(this.#turn)) {
      this.#turn++;
      for (const w of this.#watchers.filter((x) => x.order < this.#turn)) {
        this.#watchers.splice(this.#watchers.indexOf(w), 1);
        w.resolve();
      }
      const w = this.#turnWaiters.get(this.#turn);
      if (w) {
        this.#turnWaiters.delete(this.#turn);
        w.signal?.removeEventListener('abort', w.onAbort);
        w.ready();
      }
    }
  }

  #wait(signal: AbortSignal | undefined, enqueue: (w: Waiter) => void, dequeue: (w: Waiter) => void): Promise<void> {
    if (signal?.aborted) return Promise.reject(new UserAbortError());
    return new Promise((resolve, reject) => {
      const w: Waiter = {
        signal,
        ready: resolve,
        onAbort: () => {
          dequeue(w);
          reject(new UserAbortError());
        },
      };
      signal?.addEventListener('abort', w.onAbort, { once: true });
      enqueue(w);
    });
  }

  #releaser(): (outcome?: 'refused') => void {
    this.#granted++;
    let done = false;
    return (outcome) => {
      if (done) return;
      done = true;
      const atLimit = this.#inUse >= this.#limit();
      this.#inUse--;
      if (outcome === 'refused') this.#adaptive?.refused(this.#inUse);
      else this.#adaptive?.finished(atLimit);
      this.#handOn();
    };
  }

  /** Give free slots to the waiting files, first come first served, while under the limit. */
  #handOn(): void {
    while (this.#inUse < this.#limit()) {
      const next = this.#queue.shift();
      if (!next) return;
      this.#inUse++;
      next.signal?.removeEventListener('abort', next.onAbort);
      next.ready();
    }
  }
}
