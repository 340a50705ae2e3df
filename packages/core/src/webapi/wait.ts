/** Polling a job to its end: backoff with a cap, an overall deadline, abort, a status callback. */
import { withDeadline } from '../deadline';
import { JobFailedError, ProtocolError, RateLimitError } from '../errors';
import type { JobRecord } from '../contract/webapi-types';
import type { PollPolicy, WebApiContext } from './options';
import { PollSchedule } from './poll-schedule';
import { TRANSPORT_DEFAULTS, type RetryInfo } from '../transport';

export interface WaitOptions {
  /** Stops the polling; the promise rejects with `UserAbortError`. */
  signal?: AbortSignal;
  /** Called with every job record received (each poll), e.g. for a progress display. */
  onStatus?: (job: JobRecord) => void;
  /** Overall limit in ms; then `TimeoutError`. Default: the client's `jobTimeoutMs` (30 min). */
  timeoutMs?: number;
  /** Overrides the client's poll policy for this job. */
  poll?: PollPolicy;
  /**
   * Asked before each status request: true while other work waits for this
   * job to end (files waiting for its job slot). Its end is then looked for
   * more closely, with more requests. Default: never.
   */
  urgent?: () => boolean;
  /** Told before each wait before a status request is made again: the transport's retries and a 429 waited out. */
  onRetry?: (info: RetryInfo) => void;
}

/**
 * Poll `status` until the job leaves PENDING/PROCESSING, spaced by `PollSchedule`
 * (blind at first, around the expected end once jobs have completed; a blind
 * wait is cut short when another job of the client completes first). States outside the
 * document are treated as still running (tolerance over guessing), bounded by
 * the deadline. A status request refused for the account's request rate
 * (429) is repeated after its `Retry-After` for as long as the deadline
 * allows: the job runs on in the service, and giving up on it would only
 * start it again. Any other status request that keeps failing after the
 * transport's retries ends the wait with that error.
 */
export function waitForJob(
  ctx: WebApiContext,
  status: (signal: AbortSignal) => Promise<JobRecord>,
  label: string,
  options: WaitOptions,
): Promise<JobRecord> {
  const policy = { ...ctx.poll, ...options.poll };
  const timeoutMs = options.timeoutMs ?? ctx.jobTimeoutMs;
  return withDeadline(options.signal, timeoutMs, `waiting for ${label}`, async (signal) => {
    const { adaptive, ...spacing } = policy;
    const { durations } = ctx;
    const expected = adaptive ? durations.expected : undefined;
    const phase = adaptive && expected === undefined ? durations.nextBlindPhase() : 0;
    const schedule = new PollSchedule(spacing, expected, phase);
    for (;;) {
      // Another job taught the client the duration while this one's last request was under way.
      if (adaptive && schedule.blind && durations.expected !== undefined) schedule.learn(durations.expected, false);
      if (adaptive && schedule.blind) {
        if (await sleepUnlessLearned(ctx, schedule.next(), signal)) {
          schedule.learn(durations.expected, true);
          continue;
        }
      } else await ctx.sleep(schedule.next(options.urgent?.() ?? false), signal);
      const job = await statusUnlessRefused(ctx, status, signal, options.onRetry);
      if (job === undefined) continue;
      schedule.observe(job.status);
      options.onStatus?.(job);
      if (job.status === 'COMPLETED') {
        if (typeof job.correctedFile !== 'string' || job.correctedFile === '') {
          throw new ProtocolError(`job ${job._id} is COMPLETED without correctedFile`, job);
        }
        ctx.durations.record(job.timeTaken);
        return job;
      }
      if (job.status === 'FAILED' || job.status === 'REJECTED') {
        throw new JobFailedError(String(job._id), job.status, typeof job.statusText === 'string' ? job.statusText : '', job);
      }
    }
  });
}

/**
 * `ctx.sleep(ms)`, cut short when the client learns the jobs' duration (the
 * first job of the batch completes). Resolves true when cut short for that.
 */
async function sleepUnlessLearned(ctx: WebApiContext, ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  const cut = new AbortController();
  let learned = false;
  const onAbort = () => cut.abort(signal?.reason);
  if (signal?.aborted) onAbort();
  signal?.addEventListener('abort', onAbort, { once: true });
  const off = ctx.durations.onFirstLearned(() => {
    learned = true;
    cut.abort();
  });
  try {
    await ctx.sleep(ms, cut.signal);
    return false;
  } catch (err) {
    if (learned && !signal?.aborted) return true;
    throw err;
  } finally {
    off();
    signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * One status request; a 429 is waited out (its `Retry-After`, or the first
 * backoff delay without one), told to `onRetry` first, and answers undefined,
 * so the caller polls again.
 */
async function statusUnlessRefused(
  ctx: WebApiContext,
  status: (signal: AbortSignal) => Promise<JobRecord>,
  signal: AbortSignal,
  onRetry: ((info: RetryInfo) => void) | undefined,
): Promise<JobRecord | undefined> {
  try {
    return await status(signal);
  } catch (err) {
    if (!(err instanceof RateLimitError)) throw err;
    const delayMs = refusalDelayMs(ctx, err);
    onRetry?.({ request: err.request, attempt: 1, delayMs, error: err, rateLimit: 'requests' });
    await ctx.sleep(delayMs, signal);
    return undefined;
  }
}

/**
 * How long to wait after a 429 before asking again: the service's
 * `Retry-After` (capped by `retryAfterMaxMs`), else the first backoff delay;
 * plus up to 20 % so requests refused together do not return together.
 */
export function refusalDelayMs(ctx: WebApiContext, err: RateLimitError): number {
  const { retryBaseDelayMs = TRANSPORT_DEFAULTS.retryBaseDelayMs, retryAfterMaxMs = TRANSPORT_DEFAULTS.retryAfterMaxMs } = ctx.transport.options;
  const base = err.retryAfterMs === undefined ? retryBaseDelayMs : Math.min(retryAfterMaxMs, err.retryAfterMs);
  return Math.round(base * (1 + Math.random() * 0.2));
}
