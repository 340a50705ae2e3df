/**
 * What a host shows while a correction waits before trying again (`CorrectOptions.onRetry`): why the
 * service made it wait and for how long, counting down. One wording for every host, from what the
 * `RetryInfo` says; its error is already redacted, and only its class and status are used here.
 */
import type { CorrectionProgress, CorrectOptions } from './backend';
import { APIError, ConnectionError, RateLimitError, RequestTimeoutError, TimeoutError } from './errors';
import { formatDuration } from './format';
import type { RetryInfo } from './transport';

/**
 * A wait before a request is made again, as plain data (a batch event carries it): why, in the user's
 * words, how long, and which attempt comes next.
 */
export interface ServiceWait {
  /** E.g. `Service busy (rate limited)`, `Service unavailable`. */
  reason: string;
  /** The wait, ms. */
  delayMs: number;
  /** The retry about to be made: 1 for the first (`RetryInfo.attempt`). */
  attempt: number;
  /** The retries the request may make; absent for a wait bounded by the correction's time limit. */
  maxRetries?: number;
  /** The service refused with a 429: which of the account's limits it stands for (`RetryInfo.rateLimit`). Absent for other waits. */
  rateLimited?: RetryInfo['rateLimit'];
}

/** The wait `info` announces, as data. */
export function serviceWait(info: RetryInfo): ServiceWait {
  const { delayMs, attempt, maxRetries, rateLimit, error } = info;
  return { reason: waitReason(info), delayMs, attempt, ...(maxRetries === undefined ? {} : { maxRetries }), ...(error instanceof RateLimitError ? { rateLimited: rateLimit } : {}) };
}

/**
 * E.g. `Service busy (rate limited) — retrying in 42 s`, or
 * `Service unavailable — retrying in 8 s (attempt 2 of 3)`; `leftMs` is the wait still to go.
 */
export function waitText(wait: ServiceWait, leftMs: number): string {
  const seconds = Math.max(1, Math.ceil(leftMs / 1000));
  const of = wait.maxRetries === undefined ? '' : ` (attempt ${wait.attempt + 1} of ${wait.maxRetries + 1})`;
  return `${wait.reason} — retrying in ${formatDuration(seconds * 1000)}${of}`;
}

/** {@link waitText} of the wait `info` announces. */
export function retryWaitText(info: RetryInfo, leftMs: number): string {
  return waitText(serviceWait(info), leftMs);
}

/** Why the request is made again, in the user's words. */
function waitReason({ error, rateLimit }: RetryInfo): string {
  if (error instanceof RateLimitError) return rateLimit === 'jobs' ? 'Service busy (too many jobs at once)' : 'Service busy (rate limited)';
  if (error instanceof RequestTimeoutError) return 'Service too slow to answer';
  if (error instanceof APIError && error.status === 503) return 'Service unavailable';
  if (error instanceof APIError) return `Service error (HTTP ${error.status})`;
  if (error instanceof ConnectionError) return 'Service not reachable';
  if (error instanceof TimeoutError) return 'No answer from the service';
  return 'Request failed';
}

/**
 * A countdown of one correction's waits: pass `onRetry` as `CorrectOptions.onRetry`; `show` gets
 * {@link retryWaitText} at once and each time the whole seconds left change, and `undefined` when the
 * wait is over and the request is made again (the host shows its phase again). A new wait replaces the
 * one shown. Call `stop` when the correction ends (done, failed or cancelled): it stops the timer
 * without calling `show`, so the host's last word stays. Only `setTimeout`, as core's own waits use,
 * so it runs alike in Node, a browser iframe and UXP.
 */
export class RetryCountdown {
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly show: (text: string | undefined) => void,
    private readonly now: () => number = Date.now,
  ) {}

  readonly onRetry = (info: RetryInfo): void => this.start(serviceWait(info));

  /** Show `wait`, counting down, in place of any wait shown. */
  start(wait: ServiceWait): void {
    this.stop();
    const until = this.now() + wait.delayMs;
    let shown: string | undefined;
    const tick = (): void => {
      const left = until - this.now();
      if (left <= 0) {
        this.#timer = undefined;
        return this.show(undefined);
      }
      // A timer may fire a millisecond before the clock says the second is over: the same text is not said twice.
      const text = waitText(wait, left);
      if (text !== shown) this.show((shown = text));
      // Again when the shown (rounded up) seconds drop by one.
      this.#timer = setTimeout(tick, left % 1000 || 1000);
    };
    tick();
  }

  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

/**
 * One correction's line for a host: `onProgress` and `onRetry` to pass in its `CorrectOptions`. `show` gets
 * each phase and, while a request waits before trying again, the phase it interrupts with the wait's text
 * counting down ({@link RetryCountdown}), then the phase alone again as the request is made again. Call
 * `stop` once the correction has ended, so a countdown cannot write over the host's last word.
 */
export function progressWithWaits(
  show: (phase: CorrectionProgress['phase'], waiting?: string) => void,
): Required<Pick<CorrectOptions, 'onProgress' | 'onRetry'>> & { stop: () => void } {
  let phase: CorrectionProgress['phase'] = 'validating';
  const waits = new RetryCountdown((waiting) => show(phase, waiting));
  return {
    onProgress: (p) => {
      waits.stop();
      phase = p.phase;
      show(phase);
    },
    onRetry: waits.onRetry,
    stop: () => waits.stop(),
  };
}
