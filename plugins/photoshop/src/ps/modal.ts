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
export async function inModal<T>(host: Host, commandName: string, fn: (context: PsExecutionContext) => Promise<T>, wait?: ModalWait): Promise<T> {
  let cancelled = false;
  let entered = false;
  const run = () => {
    const scope = host.ps.core.executeAsModal(async (context) => {
      entered = true;
      // Photoshop gave the modal state only after the user pressed Cancel in the panel: nothing is done.
      if (wait?.signal?.aborted) throw new CancelledError();
      try {
        const result = await fn(context);
        if (context.isCancelled) throw new CancelledError();
        return result;
      } finally {
        cancelled = context.isCancelled;
      }
    }, { commandName, ...(wait ? { timeOut: wait.seconds } : {}) });
    return wait?.signal ? leftOnCancel(scope, wait.signal, () => entered) : scope;
  };
  try {
    return await (wait ? whenModalFree(run, wait) : run());
  } catch (err) {
    if (cancelled && !(err instanceof CancelledError)) throw new CancelledError();
    throw err;
  }
}

/** How long to wait for Photoshop's modal state when another plug-in or a dialog holds it, and what stops the wait. */
export interface ModalWait {
  seconds: number;
  signal?: AbortSignal | undefined;
  /** What the user is told was not done when Photoshop stays busy; default: the result could not be added. */
  notDone?: string;
  /** What the user is told to do then; default: close the dialog and try again. */
  toDo?: string;
}

/**
 * How long reading a document waits for Photoshop's modal state: a short action or another plug-in's step passes, a
 * dialog the user opened (while an earlier document of Correct All was at the service, or before pressing Preview)
 * is told to be closed.
 */
const READ_MODAL_WAIT_S = 10;

/** The wait of every read of a document before anything is sent: for a correction and for a preview alike. */
export function readingWait(signal: AbortSignal | undefined): ModalWait {
  return { seconds: READ_MODAL_WAIT_S, signal, notDone: 'nothing was read or sent' };
}

/**
 * `scope`, or `CancelledError` as soon as `signal` aborts while Photoshop has not yet started it: from 25.10 Photoshop
 * itself retries a refused executeAsModal for its whole `timeOut` (executeasmodal.md:69-71), a wait no API can
 * interrupt, so the panel's Cancel stops waiting for it instead. A scope started later finds the signal aborted and
 * does nothing (see {@link inModal}).
 */
function leftOnCancel<T>(scope: Promise<T>, signal: AbortSignal, entered: () => boolean): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      if (!entered()) reject(new CancelledError());
    };
    signal.addEventListener('abort', onAbort);
    scope.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Between tries for the modal state where Photoshop does not retry itself (before 25.10, `timeOut` is not known). */
const MODAL_RETRY_MS = 500;

/**
 * `run`, tried again while Photoshop answers that it is in a modal state (another plug-in's scope or a dialog),
 * until `wait.seconds` have passed. A result that arrives while the user has a dialog open is applied when it
 * closes, not thrown away.
 */
async function whenModalFree<T>(run: () => Promise<T>, wait: ModalWait): Promise<T> {
  const deadline = Date.now() + wait.seconds * 1000;
  for (;;) {
    try {
      return await run();
    } catch (err) {
      if (!isModalBusy(err) || Date.now() >= deadline) throw busyError(err, wait);
      if (wait.signal?.aborted) throw new CancelledError();
      await new Promise((resolve) => setTimeout(resolve, MODAL_RETRY_MS));
    }
  }
}

/** The error `number` of executeAsModal's refusal while another plug-in or a dialog holds Photoshop. */
const MODAL_BUSY_NUMBER = 9;

/**
 * executeAsModal refused because Photoshop is in a modal state. Told by the error's `number`, as Adobe's own
 * check does (executeasmodal.md:87-94, `if (e.number == 9)`; the same check since the page's first version
 * for 23.0), never by its text: the message is Photoshop's UI text, localized on a non-English Photoshop, and
 * its English wording changed in 25.10 (executeasmodal.md:71-73).
 */
function isModalBusy(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { number?: unknown }).number === MODAL_BUSY_NUMBER;
}

/** Photoshop stayed in a modal state (another plug-in's scope, a dialog) for all of a {@link ModalWait}. */
export class PhotoshopBusyError extends Error {
  override name = 'PhotoshopBusyError';
}

function busyError(err: unknown, { seconds, notDone = 'the result could not be added', toDo = 'close the dialog and try again' }: ModalWait): unknown {
  if (!isModalBusy(err)) return err;
  return new PhotoshopBusyError(`Photoshop stayed busy with another plug-in or a dialog for ${seconds} s, so ${notDone} (${messageOf(err)}); ${toDo}`);
}

/** Photoshop's own words for an error, whatever shape it was thrown in. */
function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String((err as { message?: unknown }).message ?? err);
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
