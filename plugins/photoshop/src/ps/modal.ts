/**
 * Modal scopes and history steps. Photoshop lets a plugin change a document
 * only inside `core.executeAsModal`; `hostControl.suspendHistory` folds every
 * change made until `resumeHistory` into one History panel entry, and
 * `resumeHistory(…, false)` drops them all, which is how a failed or
 * cancelled run leaves the document exactly as it was.
 */
import type { Host, PsExecutionContext } from '../host/types';

/** The user cancelled (the panel's Cancel button, or Escape in Photoshop's progress bar). */
export class CancelledError extends Error {
  override name = 'CancelledError';
  constructor() {
    super('cancelled');
  }
}

/**
 * Run `fn` in a modal scope named `commandName` (shown in Photoshop's progress
 * bar). Escape there sets `isCancelled`, and Photoshop's APIs then throw
 * (AdobeDocs/uxp-photoshop `src/pages/ps-reference/media/executeasmodal.md:99-104`):
 * whatever `fn` threw, a cancelled scope ends in `CancelledError`, so the user
 * sees "cancelled", not a failure, and "Correct All" stops.
 */
export async function inModal<T>(host: Host, commandName: string, fn: (context: PsExecutionContext) => Promise<T>): Promise<T> {
  let cancelled = false;
  try {
    return await host.ps.core.executeAsModal(async (context) => {
      try {
        const result = await fn(context);
        if (context.isCancelled) throw new CancelledError();
        return result;
      } finally {
        cancelled = context.isCancelled;
      }
    }, { commandName });
  } catch (err) {
    if (cancelled && !(err instanceof CancelledError)) throw new CancelledError();
    throw err;
  }
}

/**
 * Run `fn` as one history step of one document, named `name`. The step is
 * committed only when `fn` resolves and nobody cancelled; otherwise every
 * change `fn` made is rolled back and the error is rethrown.
 */
export async function inOneHistoryStep<T>(
  context: PsExecutionContext,
  documentID: number,
  name: string,
  signal: AbortSignal | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  const suspension = await context.hostControl.suspendHistory({ documentID, name });
  let result: T;
  try {
    result = await fn();
    if (signal?.aborted || context.isCancelled) throw new CancelledError();
  } catch (err) {
    try {
      await context.hostControl.resumeHistory(suspension, false);
    } catch {
      // The error that stopped the step is what the user needs; Photoshop also rolls back
      // suspended history when the modal scope ends by an exception (executeasmodal.md:271).
    }
    throw err;
  }
  await context.hostControl.resumeHistory(suspension, true);
  return result;
}
