/**
 * A fleet of self-hosted container instances of one kind (colour correction or
 * background removal): work goes to the healthy instance with the least
 * outstanding work relative to its concurrency (among instances with a free
 * slot and known speeds: the one whose recent calls returned soonest, so the
 * start and the end of a batch do not wait on the slowest machine), each
 * instance runs at most its own number of calls at once (given, or chosen
 * from its measured speed: {@link AutoWidth}), every instance is
 * health-checked before its first use and while work is outstanding, and a
 * call that fails because its instance failed (no answer, a timeout, a 5xx, a
 * BGR licence it refuses) is moved to another instance.
 * Runtime-agnostic (timers and promises only): the CLI, VS Code and any
 * other host share it.
 */
import { BgrLicenceError } from '../bgr/errors';
import { APIError, ConnectionError, TimeoutError, UserAbortError } from '../errors';
import { AutoWidth } from './widths';

/** One instance of a fleet. */
export interface FleetMember<T> {
  /** How the instance is named in status lines and notes (its base URL). Never holds a secret. */
  name: string;
  /** The client of this instance. */
  client: T;
  /** Calls this instance runs at once (with a larger `maxConcurrency`: at first). Default 1. */
  concurrency?: number;
  /**
   * Above `concurrency`: the calls at once are chosen from the instance's
   * measured speed ({@link AutoWidth}), starting at `concurrency`, between 1
   * and this. Default: fixed at `concurrency`.
   */
  maxConcurrency?: number;
  /** One health probe (e.g. `GET /version`); resolves true when the instance answers. Must not throw. */
  health: (signal: AbortSignal) => Promise<boolean>;
}

export interface FleetOptions {
  /** Time between health checks while work is outstanding or waiting, ms. Default 5,000. */
  healthIntervalMs?: number;
  /** Which errors mean the instance failed (and the call moves). Default {@link isInstanceFailure}. */
  isInstanceFailure?: (err: unknown) => boolean;
  /** Told when an instance goes down or comes back. */
  onEvent?: (e: FleetEvent) => void;
}

export type FleetEvent =
  | { type: 'down'; instance: string; reason: string }
  | { type: 'up'; instance: string }
  | { type: 'moved'; from: string; reason: string };

/** What a host shows about one instance. */
export interface FleetInstanceStatus {
  name: string;
  /** Undefined until its first health check. */
  healthy: boolean | undefined;
  /** Calls it is given at once now. */
  concurrency: number;
  /** The most calls it may be given at once (its `concurrency` when fixed). */
  maxConcurrency: number;
  /** Whether its calls at once follow its measured speed (`maxConcurrency` above its start), else fixed. */
  automatic: boolean;
  /** Calls running on it now. */
  outstanding: number;
  /** Calls it completed. */
  completed: number;
  /** Calls that failed on it because it failed (each moved to another instance or reported). */
  failed: number;
  /** Why it last failed or last went down, when it did. */
  lastError?: string;
}

/** The outcome of {@link Fleet.use}: the value, the instance that produced it, and a note per instance that failed on the way. */
export interface FleetUse<R> {
  value: R;
  instance: string;
  notes: string[];
}

/** No instance of the fleet can take work: every one is down (or has failed this call). A connection failure for hosts. */
export class FleetUnavailableError extends ConnectionError {
  override name = 'FleetUnavailableError';
  constructor(detail: string, options?: { cause?: unknown }) {
    super(`any instance (${detail})`, options);
  }
}

/**
 * The default: no answer, a timeout, a 5xx, or a BGR instance that stays
 * unlicensed after activation (that machine cannot serve; others may) is the
 * instance's failure; other 4xx answers and the caller's abort are the call's own.
 */
export function isInstanceFailure(err: unknown): boolean {
  if (err instanceof UserAbortError) return false;
  if (err instanceof ConnectionError || err instanceof TimeoutError || err instanceof BgrLicenceError) return true;
  return err instanceof APIError && err.status >= 500;
}

interface Member<T> extends Omit<FleetInstanceStatus, 'automatic'> {
  client: T;
  probe: (signal: AbortSignal) => Promise<boolean>;
  checking: Promise<void> | undefined;
  /** Recent time of one call on it, ms (a moving average); undefined until one completed. */
  callMs: number | undefined;
  width: AutoWidth;
}

/** Weight of the newest call in an instance's moving average of call times. */
const CALL_TIME_WEIGHT = 0.2;

interface Waiter {
  wake: () => void;
}

export class Fleet<T> {
  readonly #members: Member<T>[];
  readonly #intervalMs: number;
  readonly #isFailure: (err: unknown) => boolean;
  readonly #onEvent: (e: FleetEvent) => void;
  readonly #waiters = new Set<Waiter>();
  #first: Promise<void> | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  #probes = new AbortController();

  constructor(members: readonly FleetMember<T>[], options: FleetOptions = {}) {
    if (members.length === 0) throw new TypeError('a fleet needs at least one instance');
    const names = new Set<string>();
    this.#members = members.map((m) => {
      if (names.has(m.name)) throw new TypeError(`instance ${m.name} is given twice`);
      names.add(m.name);
      const concurrency = Math.floor(m.concurrency ?? 1);
      if (!(concurrency >= 1)) throw new RangeError(`concurrency of ${m.name} must be an integer ≥ 1 (got ${String(m.concurrency)})`);
      const most = Math.floor(m.maxConcurrency ?? concurrency);
      if (!(most >= concurrency)) throw new RangeError(`maxConcurrency of ${m.name} must be an integer ≥ its concurrency ${concurrency} (got ${String(m.maxConcurrency)})`);
      const width = new AutoWidth(concurrency, most);
      return { name: m.name, client: m.client, probe: m.health, concurrency, maxConcurrency: width.max, width, healthy: undefined, outstanding: 0, completed: 0, failed: 0, checking: undefined, callMs: undefined };
    });
    this.#intervalMs = options.healthIntervalMs ?? 5_000;
    this.#isFailure = options.isInstanceFailure ?? isInstanceFailure;
    this.#onEvent = options.onEvent ?? (() => undefined);
  }

  /** The sum of the instances' concurrency: how many calls the fleet runs at once now. */
  get concurrency(): number {
    return this.#members.reduce((n, m) => n + m.concurrency, 0);
  }

  /** The sum of the instances' largest concurrency: how many calls a caller should offer at once so the fleet can widen every instance it chooses from measured speed. */
  get maxConcurrency(): number {
    return this.#members.reduce((n, m) => n + m.maxConcurrency, 0);
  }

  /** Each instance's state, in the order given. */
  status(): FleetInstanceStatus[] {
    return this.#members.map(({ name, healthy, concurrency, maxConcurrency, width, outstanding, completed, failed, lastError }) => ({
      name, healthy, concurrency, maxConcurrency, automatic: width.automatic, outstanding, completed, failed, ...(lastError !== undefined ? { lastError } : {}),
    }));
  }

  /**
   * Run `fn` on an instance: of the healthy ones with a free slot, the one
   * whose recent calls returned soonest, else the one with the least
   * outstanding work (waiting while every healthy one is at its concurrency). When the call
   * fails because the instance failed, the instance is marked down and the
   * call runs again on another one it has not failed on; `fn` must therefore
   * be safe to repeat (its input replayable). Rejects with the call's own
   * error, or `FleetUnavailableError` when no instance is left to try.
   */
  async use<R>(fn: (client: T, signal: AbortSignal | undefined) => Promise<R>, signal?: AbortSignal): Promise<FleetUse<R>> {
    const tried = new Set<Member<T>>();
    const notes: string[] = [];
    for (;;) {
      const m = await this.#acquire(tried, signal);
      // It took the instance's last free slot: the caller keeps this instance at its width.
      const full = m.outstanding >= m.concurrency;
      const started = Date.now();
      try {
        const value = await fn(m.client, signal);
        m.completed++;
        const ms = Date.now() - started;
        m.callMs = m.callMs === undefined ? ms : m.callMs + CALL_TIME_WEIGHT * (ms - m.callMs);
        m.concurrency = m.width.observe(ms, full, this.#quickestMs(ms));
        return { value, instance: m.name, notes };
      } catch (err) {
        if (signal?.aborted || !this.#isFailure(err)) throw err;
        const reason = messageOf(err);
        m.failed++;
        tried.add(m);
        this.#down(m, reason);
        notes.push(`instance ${m.name} failed (${reason}); the file was moved to another instance`);
        this.#onEvent({ type: 'moved', from: m.name, reason });
      } finally {
        m.outstanding--;
        this.#wakeAll();
      }
    }
  }

  /** The fastest call any instance has returned, `ms` included. */
  #quickestMs(ms: number): number {
    return this.#members.reduce((q, m) => Math.min(q, m.width.fastestMs), ms);
  }

  /** Stop the health checks (idempotent). Calls still running finish; later `use` calls still work, checked on demand. */
  close(): void {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#probes.abort();
    this.#probes = new AbortController();
    this.#wakeAll();
  }

  async #acquire(tried: Set<Member<T>>, signal: AbortSignal | undefined): Promise<Member<T>> {
    this.#first ??= this.#firstUsable();
    await this.#first;
    let probed = false;
    for (;;) {
      if (signal?.aborted) throw new UserAbortError();
      const usable = this.#members.filter((m) => m.healthy === true && !tried.has(m));
      const free = usable.filter((m) => m.outstanding < m.concurrency);
      if (free.length > 0) {
        const m = free.reduce((a, b) => (sooner(b, a) ? b : a));
        m.outstanding++;
        this.#schedule();
        return m;
      }
      if (usable.length === 0) {
        // Every instance left is down: probe them once more (one may be back) before giving up.
        if (probed) throw new FleetUnavailableError(this.#describeDown(tried));
        probed = true;
        await Promise.all(this.#members.filter((m) => !tried.has(m)).map((m) => this.#check(m)));
        continue;
      }
      this.#schedule();
      await this.#wait(signal);
    }
  }

  /** Wait until a slot frees, an instance changes state, or the signal aborts. */
  #wait(signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      const w: Waiter = {
        wake: () => {
          this.#waiters.delete(w);
          signal?.removeEventListener('abort', w.wake);
          resolve();
        },
      };
      this.#waiters.add(w);
      signal?.addEventListener('abort', w.wake, { once: true });
    });
  }

  #wakeAll(): void {
    for (const w of [...this.#waiters]) w.wake();
  }

  /** Health checks every `healthIntervalMs` while anything is outstanding or waiting. */
  #schedule(): void {
    if (this.#timer || this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      const busy = this.#waiters.size > 0 || this.#members.some((m) => m.outstanding > 0);
      if (!busy) return;
      void this.#checkAll().then(() => this.#schedule());
    }, this.#intervalMs);
  }

  /**
   * The first health checks: settled once any instance answers healthy (or
   * every check has ended), so work starts on the first instance ready and an
   * instance whose check hangs until its timeout delays nothing; the others
   * join as their checks answer.
   */
  #firstUsable(): Promise<void> {
    return new Promise((resolve) => {
      const checks = this.#members.map((m) => this.#check(m).then(() => {
        if (m.healthy === true) resolve();
      }));
      void Promise.all(checks).then(() => resolve());
    });
  }

  #checkAll(): Promise<void> {
    return Promise.all(this.#members.map((m) => this.#check(m))).then(() => undefined);
  }

  #check(m: Member<T>): Promise<void> {
    m.checking ??= m
      .probe(this.#probes.signal)
      .catch(() => false)
      .then((ok) => {
        m.checking = undefined;
        if (ok && m.healthy !== true) {
          const wasDown = m.healthy === false;
          m.healthy = true;
          if (wasDown) this.#onEvent({ type: 'up', instance: m.name });
        } else if (!ok) this.#down(m, 'health check failed');
        this.#wakeAll();
      });
    return m.checking;
  }

  #down(m: Member<T>, reason: string): void {
    m.lastError = reason;
    if (m.healthy === false) return;
    m.healthy = false;
    this.#onEvent({ type: 'down', instance: m.name, reason });
  }

  #describeDown(tried: Set<Member<T>>): string {
    return this.#members.map((m) => `${m.name}: ${tried.has(m) ? 'failed this file' : 'down'}${m.lastError ? ` (${m.lastError})` : ''}`).join('; ');
  }
}

/**
 * Whether a call on `b` is expected to finish before one on `a` (both with a
 * free slot): by their recent call times once both have some, so when slots
 * are free on instances of different speeds (at the start, near the end of a
 * batch) the file goes to the one that returns it first; otherwise, and on a
 * tie, the one with the least outstanding work for its concurrency.
 */
function sooner(b: Omit<FleetInstanceStatus, 'automatic'> & { callMs: number | undefined }, a: Omit<FleetInstanceStatus, 'automatic'> & { callMs: number | undefined }): boolean {
  if (a.callMs !== undefined && b.callMs !== undefined && a.callMs !== b.callMs) return b.callMs < a.callMs;
  return b.outstanding / b.concurrency < a.outstanding / a.concurrency;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Run `fn` on `target`: on one of a fleet's instances (see {@link Fleet.use}),
 * or directly on a single client (`instance` undefined, no notes).
 */
export async function onInstance<T, R>(target: T | Fleet<T>, fn: (client: T, signal: AbortSignal | undefined) => Promise<R>, signal?: AbortSignal): Promise<FleetUse<R> | { value: R; instance: undefined; notes: string[] }> {
  if (target instanceof Fleet) return target.use(fn, signal);
  return { value: await fn(target, signal), instance: undefined, notes: [] };
}

/**
 * Results up to this size are read in full while their call holds its
 * instance; a larger one streams on past its first bytes, so the memory a
 * file in flight costs does not grow with the file's size.
 */
export const WHOLE_RESULT_BYTES = 64 * 1024 * 1024;

/**
 * As {@link onInstance}, for a call whose value carries the result file as a
 * stream: on a fleet the result is read (up to `wholeBytes`) while the call
 * still holds its instance, so a download cut off by a dying instance (a
 * `ConnectionError` from the body) moves the file to another instance like any
 * other failure of that instance, instead of surfacing after the fleet has let
 * go of the call. Past `wholeBytes` the rest streams and a cut there is left
 * to the caller's whole-file retry. On a single client the body stays a
 * stream (nowhere to move it).
 */
export async function onInstanceWhole<T, R extends { body: ReadableStream<Uint8Array> }>(target: T | Fleet<T>, fn: (client: T, signal: AbortSignal | undefined) => Promise<R>, signal?: AbortSignal, wholeBytes = WHOLE_RESULT_BYTES): Promise<FleetUse<R> | { value: R; instance: undefined; notes: string[] }> {
  if (!(target instanceof Fleet)) return onInstance(target, fn, signal);
  return target.use(async (client, s) => {
    const value = await fn(client, s);
    return { ...value, body: await readAhead(value.body, wholeBytes) };
  }, signal);
}

/** `body` with up to `limit` bytes (and one chunk) already read: the read part, then the rest as it comes. */
async function readAhead(body: ReadableStream<Uint8Array>, limit: number): Promise<ReadableStream<Uint8Array>> {
  const reader = body.getReader();
  const head: Uint8Array[] = [];
  let size = 0;
  let done = false;
  while (!done && size <= limit) {
    const next = await reader.read();
    done = next.done;
    if (next.value) {
      head.push(next.value);
      size += next.value.byteLength;
    }
  }
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const buffered = head.shift();
      if (buffered) return controller.enqueue(buffered);
      const next = done ? { done: true as const, value: undefined } : await reader.read();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}
