/**
 * Abort events for runtimes whose `AbortSignal` has none. UXP documents its
 * `AbortSignal` with `aborted`, `reason`, `throwIfAborted()` and the static
 * `abort()` only, "AbortSignal works only for web streams"
 * (AdobeDocs/uxp-photoshop `src/pages/uxp-api/reference-js/global-members/html-dom/abort-signal.md:9-33`;
 * `@adobe/cc-ext-uxp-types/uxp/index.d.ts:2015-2039`: no `addEventListener`,
 * no `onabort`, no `timeout()`). `@pfc/core` listens for `abort` on the signals
 * it is given and on those of the controllers it makes, so without events a
 * cancel or an inactivity timeout would go unnoticed — or, where core calls
 * `addEventListener` unguarded, every request would fail. The panel therefore
 * supplies a complete controller when (and only when) the runtime's lacks them.
 */

type Listener = (event: { type: 'abort' }) => void;

/** A signal with the abort event, as core and the panel's fetch wrapper use it. */
class EventedAbortSignal {
  aborted = false;
  reason: unknown = undefined;
  onabort: ((event: { type: 'abort' }) => void) | null = null;
  private listeners: Listener[] = [];

  addEventListener(type: string, listener: Listener): void {
    if (type === 'abort' && !this.listeners.includes(listener)) this.listeners.push(listener);
  }

  removeEventListener(type: string, listener: Listener): void {
    if (type === 'abort') this.listeners = this.listeners.filter((l) => l !== listener);
  }

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  /** Called once by the controller. */
  fire(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const event = { type: 'abort' as const };
    const listeners = this.listeners;
    this.listeners = [];
    this.onabort?.(event);
    for (const l of listeners) l(event);
  }
}

/** An abort error as `fetch` rejects with one (`name` is what callers test). */
export function abortError(reason?: unknown): Error {
  if (reason instanceof Error) return reason;
  const err = new Error('The operation was aborted.');
  err.name = 'AbortError';
  return err;
}

export class EventedAbortController {
  readonly signal = new EventedAbortSignal();
  abort(reason?: unknown): void {
    this.signal.fire(reason === undefined ? abortError() : reason);
  }
}

/** Whether the runtime's own AbortController signals abort by event. */
export function hasAbortEvents(scope: { AbortController?: unknown }): boolean {
  const Ctor = scope.AbortController as (new () => { signal: { addEventListener?: unknown } }) | undefined;
  if (typeof Ctor !== 'function') return false;
  try {
    return typeof new Ctor().signal.addEventListener === 'function';
  } catch {
    return false;
  }
}

/**
 * Make `AbortController` evented when the runtime's is not. Returns true when
 * it had to. Runs before any other panel code.
 */
export function ensureAbortEvents(scope: Record<string, unknown> = globalThis as unknown as Record<string, unknown>): boolean {
  if (hasAbortEvents(scope)) return false;
  scope.AbortController = EventedAbortController;
  return true;
}
