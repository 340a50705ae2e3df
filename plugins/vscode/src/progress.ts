/**
 * Turns the batch engine's events into what the user sees while it runs: the
 * progress notification (done/total, current file), the status-bar text and
 * one Output-channel line per file event.
 */
import { type BatchEvent, formatBytes } from '@pfc/batch';
import { RetryCountdown, waitText } from '@pfc/core';

/** Counts of the planned files; `done` includes corrected, failed, up-to-date and cancelled. */
export class ProgressModel {
  done = 0;
  corrected = 0;
  failed = 0;
  upToDate = 0;
  current: string | undefined;
  private readonly inFlight = new Set<string>();
  /** Percent reported so far (the increments add up to 100 at the end, also when the total drops). */
  private reported = 0;

  /** `total`: the files the run will judge, counted by name for a streamed plan (see the `planned` event). */
  constructor(public total: number) {}

  /** Apply one event; returns the percentage increment to report (0 when nothing finished). */
  apply(e: BatchEvent): number {
    switch (e.type) {
      case 'planned':
        // A streamed plan is planned: files counted by name and then left out (not an image…) are not in the total.
        this.total = e.files;
        return this.rebase();
      case 'start':
        this.inFlight.add(e.rel);
        this.current = e.rel;
        return 0;
      case 'corrected':
        this.corrected++;
        return this.finish(e.rel);
      case 'failed':
        this.failed++;
        return this.finish(e.rel);
      case 'cancelled':
        return this.finish(e.rel);
      case 'skipped':
        // Only up-to-date files were planned; excluded paths never counted in `total`.
        if (e.code !== 'up-to-date' || e.rel === undefined) return 0;
        this.upToDate++;
        return this.finish(e.rel);
      default:
        return 0;
    }
  }

  private finish(rel: string): number {
    this.inFlight.delete(rel);
    if (this.current === rel) this.current = [...this.inFlight][0];
    this.done++;
    return this.rebase();
  }

  /** The increment that brings the reported percent to done/total. */
  private rebase(): number {
    const percent = this.total > 0 ? (100 * Math.min(this.done, this.total)) / this.total : 0;
    const increment = percent - this.reported;
    this.reported = percent;
    return increment;
  }

  /**
   * "3/10 · holiday/beach.jpg", and the service's wait when one is shown (`ServiceWaits.shown`): "… · Service
   * busy (rate limited) — retrying in 42 s", named when it is another file's.
   */
  message(wait?: ShownWait): string {
    const waiting = wait ? ` · ${wait.rel === this.current ? '' : `${wait.rel}: `}${wait.text}` : '';
    return `${this.done}/${this.total}${this.current ? ` · ${this.current}` : ''}${waiting}`;
  }

  /** Status-bar text with a spinning icon. */
  statusText(): string {
    return `$(sync~spin) PFC ${this.done}/${this.total}`;
  }
}

/**
 * The latest wait the service imposed on a file in flight (a 429's or 503's `Retry-After`, a backoff), for
 * the progress notification: "Service busy (rate limited) — retrying in 42 s", counting
 * down (core's `RetryCountdown`) until the request is made again or the file is done. `changed` is told each
 * time the text changes. A newer wait, of any file, takes the place of the one shown.
 */
export class ServiceWaits {
  /** The wait shown, if any. */
  shown: ShownWait | undefined;
  private rel: string | undefined;
  private readonly countdown: RetryCountdown;

  constructor(private readonly changed: () => void) {
    this.countdown = new RetryCountdown((text) => {
      this.shown = text === undefined || this.rel === undefined ? undefined : { rel: this.rel, text };
      changed();
    });
  }

  apply(e: BatchEvent): void {
    if (e.type === 'waiting') {
      this.rel = e.rel;
      this.countdown.start(e.wait);
    } else if ((e.type === 'corrected' || e.type === 'failed' || e.type === 'cancelled') && e.rel === this.rel) {
      this.stop();
      this.changed();
    }
  }

  /** No wait shown, and no timer left running (at the end of a run). */
  stop(): void {
    this.countdown.stop();
    this.shown = this.rel = undefined;
  }
}

/** A file's wait as the notification shows it: the file, and core's `waitText` counting down. */
export interface ShownWait {
  rel: string;
  text: string;
}

/** The Output-channel line of an event, or undefined for events not worth a line. */
export function logLine(e: BatchEvent): string | undefined {
  switch (e.type) {
    case 'plan':
      return `plan: ${e.files} file(s), ${formatBytes(e.bytes)}, ${e.excluded} path(s) left out; backend ${e.backend}, ${e.concurrency} at once; output in ${e.outputRoots.join(', ') || '(nothing to write)'}`;
    case 'planned':
      return `planned: ${e.files} file(s), ${formatBytes(e.bytes)}`;
    case 'cleanup':
      return `removed ${e.removed.length} temporary file(s) of an interrupted run`;
    case 'skipped':
      return `skipped ${e.rel ?? e.input}: ${e.reason}`;
    case 'start':
      return `start ${e.rel} (${formatBytes(e.bytes)}, ${e.reason})`;
    case 'phase':
      return undefined;
    case 'waiting':
      return `waiting ${e.rel}: ${waitText(e.wait, e.wait.delayMs)}`;
    case 'retry':
      return `retry ${e.rel} (attempt ${e.attempt} in ${Math.round(e.delayMs)} ms): ${e.error}`;
    case 'corrected':
      return `corrected ${e.rel} → ${e.output} (${formatBytes(e.bytesIn)} → ${formatBytes(e.bytesOut)}, ${(e.durationMs / 1000).toFixed(1)} s${e.jobId ? `, job ${e.jobId}` : ''})${e.warnings.length ? ` — ${e.warnings.join('; ')}` : ''}`;
    case 'failed':
      return `FAILED ${e.rel}: ${e.error}${e.jobId ? ` (job ${e.jobId})` : ''}`;
    case 'cancelled':
      return `cancelled ${e.rel}`;
    case 'notice':
      return e.message;
  }
}
