/**
 * An overall time limit around a multi-request operation (wait for a job,
 * upload → result), as one signal that aborts at the deadline or when the
 * caller aborts. Its listener on the caller's signal is removed when the
 * operation settles, so a long-lived signal does not collect listeners.
 */
import { TimeoutError, UserAbortError } from './errors';

/**
 * Run `fn` with a signal that aborts when `signal` aborts or after `timeoutMs`.
 * A deadline abort surfaces as `TimeoutError(label, timeoutMs)`, a caller abort
 * as `UserAbortError`. `timeoutMs` of `Infinity` (or ≤ 0) means no deadline.
 */
export async function withDeadline<T>(
  signal: AbortSignal | undefined,
  timeoutMs: number,
  label: string,
  fn: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  if (signal?.aborted) throw new UserAbortError();
  const ctrl = new AbortController();
  let expired = false;
  const onAbort = () => ctrl.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  const timer = Number.isFinite(timeoutMs) && timeoutMs > 0
    ? setTimeout(() => {
        expired = true;
        ctrl.abort();
      }, timeoutMs)
    : undefined;
  try {
    return await fn(ctrl.signal);
  } catch (err) {
    if (expired && !signal?.aborted) throw new TimeoutError(label, timeoutMs);
    throw err;
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}
