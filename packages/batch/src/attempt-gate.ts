/**
 * Attempts at files run side by side, except an attempt after a lost job
 * (core's `JobLostError`: the service forgot the uploads and jobs it held — it
 * crashed or restarted), which runs alone: once no other attempt is in
 * flight, and with none starting until it ends. When a photo crashes the
 * service, every file in flight is lost with it and none can tell which one
 * did it; tried again alone, the photo that crashes it takes only itself down,
 * and the files lost beside it are corrected.
 *
 * An attempt that would run alone waits for a moment with nothing in flight.
 * Meanwhile the run takes no new file ({@link AttemptGate.quiet}), so that
 * moment comes once the files in hand are done or waiting too; but the gate
 * does not hold back the attempts of files already taken. Holding those could
 * deadlock: an attempt in flight may be waiting for the job-slot turn of an
 * earlier file (slots.ts), which would be held back. Files not taken yet come
 * later in the plan than any in hand, so no turn waits for them; and the lone
 * attempt's own turn has passed (a file passes its turn before its backoff).
 */
import { UserAbortError } from '@pfc/core';

interface Waiter {
  alone: boolean;
  enter: () => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

export class AttemptGate {
  #inFlight = 0;
  #aloneInFlight = false;
  readonly #waiting: Waiter[] = [];
  readonly #quietListeners: (() => void)[] = [];

  /** Attempts in flight now. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /**
   * Waits until an attempt may start — `alone`: none in flight, and none starts until it ends; otherwise no
   * attempt running alone — and resolves to the function that ends it (idempotent). Rejects with
   * `UserAbortError` when `signal` aborts first.
   */
  async enter(alone: boolean, signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) throw new UserAbortError();
    if (this.#mayEnter(alone)) return this.#admit(alone);
    await new Promise<void>((resolve, reject) => {
      const w: Waiter = {
        alone,
        signal,
        enter: resolve,
        onAbort: () => {
          this.#waiting.splice(this.#waiting.indexOf(w), 1);
          reject(new UserAbortError());
          this.#letIn();
        },
      };
      signal?.addEventListener('abort', w.onAbort, { once: true });
      this.#waiting.push(w);
    });
    return this.#exit(alone);
  }

  /**
   * Resolves once no attempt waits to run alone or runs alone (at once when none does), or `signal` aborts:
   * the run takes its next file then, so that an attempt waiting to run alone gets its moment.
   */
  quiet(signal?: AbortSignal): Promise<void> {
    if (this.#isQuiet() || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        signal?.removeEventListener('abort', done);
        const i = this.#quietListeners.indexOf(done);
        if (i >= 0) this.#quietListeners.splice(i, 1);
        resolve();
      };
      signal?.addEventListener('abort', done, { once: true });
      this.#quietListeners.push(done);
    });
  }

  #isQuiet(): boolean {
    return !this.#aloneInFlight && !this.#waiting.some((w) => w.alone);
  }

  #mayEnter(alone: boolean): boolean {
    return !this.#aloneInFlight && (!alone || this.#inFlight === 0);
  }

  #admit(alone: boolean): () => void {
    this.#inFlight++;
    this.#aloneInFlight = alone;
    return this.#exit(alone);
  }

  #exit(alone: boolean): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#inFlight--;
      if (alone) this.#aloneInFlight = false;
      this.#letIn();
    };
  }

  /** Lets in every waiting attempt that runs side by side; when none is in flight then, the first that runs alone. */
  #letIn(): void {
    if (this.#aloneInFlight) return;
    for (const w of this.#waiting.filter((x) => !x.alone)) this.#letInOne(w);
    const next = this.#waiting.find((x) => x.alone);
    if (next && this.#inFlight === 0) this.#letInOne(next);
    if (this.#isQuiet()) for (const listener of [...this.#quietListeners]) listener();
  }

  #letInOne(w: Waiter): void {
    this.#waiting.splice(this.#waiting.indexOf(w), 1);
    w.signal?.removeEventListener('abort', w.onAbort);
    this.#inFlight++;
    this.#aloneInFlight = w.alone;
    w.enter();
  }
}
