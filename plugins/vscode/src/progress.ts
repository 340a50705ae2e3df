/**
 * Turns the batch engine's events into what the user sees while it runs: the
 * progress notification (done/total, current file), the status-bar text and
 * one Output-channel line per file event.
 */
import { type BatchEvent, formatBytes } from '@pfc/batch';

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

  /** "3/10 · holiday/beach.jpg". */
  message(): string {
    return `${this.done}/${this.total}${this.current ? ` · ${this.current}` : ''}`;
  }

  /** Status-bar text with a spinning icon. */
  statusText(): string {
    return `$(sync~spin) PFC ${this.done}/${this.total}`;
  }
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
