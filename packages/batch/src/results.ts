/**
 * A run's per-file results without an array of every file: counts and byte
 * totals, the first failures in memory, and (optionally) every result as one
 * JSON line in a results file, read back a chunk at a time by the report.
 */
import { closeSync, createWriteStream, openSync, readSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { StringDecoder } from 'node:string_decoder';
import { isRefusal } from './decide';
import type { FileResult, FileStatus } from './events';

/** Failures a summary holds in memory (`BatchSummary.failures`); every one is in the results file. */
export const MAX_FAILURES_KEPT = 1000;

/** Counts what a run's results add up to, keeping only what a summary needs. */
export class Tally {
  readonly counts: Record<FileStatus, number> = { corrected: 0, 'up-to-date': 0, failed: 0, cancelled: 0 };
  bytesIn = 0;
  bytesOut = 0;
  /** Of the failed files, those left as is on purpose (decide.ts `REFUSALS`). */
  refused = 0;
  /** The first `MAX_FAILURES_KEPT` failures. */
  readonly failures: FileResult[] = [];
  /** Every result by plan index, only when the caller asked to keep them (`keepResults`). */
  readonly all: FileResult[] | undefined;

  constructor(keepAll: boolean, private readonly file: ResultsWriter | undefined) {
    this.all = keepAll ? [] : undefined;
  }

  /** Count one file's result (and write it out); waits only when the results file's buffer is full. */
  async add(index: number, r: FileResult): Promise<void> {
    this.counts[r.status]++;
    if (r.status === 'corrected') {
      this.bytesIn += r.bytesIn;
      this.bytesOut += r.bytesOut ?? 0;
    }
    if (r.status === 'failed' && isRefusal(r.errorName)) this.refused++;
    if (r.status === 'failed' && this.failures.length < MAX_FAILURES_KEPT) this.failures.push(r);
    if (this.all) this.all[index] = r;
    await this.file?.write(r);
  }
}

/** Appends results to a file, one JSON line each, with backpressure (a slow disk holds the run back, not memory). */
export class ResultsWriter {
  private readonly out: WriteStream;
  private failed: Error | undefined;
  /** The one wait for the stream's buffer to drain that every writer then shares (a listener each was a warning at 16 files in hand). */
  private drained: Promise<void> | undefined;

  constructor(readonly path: string) {
    this.out = createWriteStream(path, { flags: 'w', mode: 0o600 });
    this.out.on('error', (err) => (this.failed = err));
  }

  async write(r: FileResult): Promise<void> {
    if (this.failed) throw this.failed;
    if (this.out.write(`${JSON.stringify(r)}\n`)) return;
    this.drained ??= once(this.out, 'drain').then(() => {
      this.drained = undefined;
    });
    await this.drained;
  }

  /** Flush and close; throws the stream's error if a write failed. */
  async close(): Promise<void> {
    if (!this.out.closed) {
      this.out.end();
      await once(this.out, 'close').catch(() => undefined);
    }
    if (this.failed) throw this.failed;
  }
}

/**
 * The results of a results file in file order, read 64 KiB at a time
 * (synchronously: the report's renderer takes an iterable). A torn last
 * line (a run killed mid-write) is ignored.
 */
export function* readResults(path: string): Generator<FileResult> {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(64 * 1024);
    // A character cut at a chunk's end is completed by the next chunk.
    const decoder = new StringDecoder('utf8');
    let rest = '';
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      const text = rest + decoder.write(buf.subarray(0, n));
      const lines = text.split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) if (line) yield JSON.parse(line) as FileResult;
    }
    if (rest) {
      try {
        yield JSON.parse(rest) as FileResult;
      } catch {
        // A torn last line.
      }
    }
  } finally {
    closeSync(fd);
  }
}
