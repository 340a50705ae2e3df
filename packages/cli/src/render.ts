/** Turning engine events into terminal output: lines for people (with a live bar on a terminal) or JSON lines. */
import { isAbsolute, relative } from 'node:path';
import { styleText } from 'node:util';
import { type BatchEvent, type BatchSummary, formatBytes, formatDuration, type LeftOutCounts, NOT_SUPPORTED, type Tally } from '@pfc/batch';
import { waitText } from '@pfc/core';
import type { CliIo } from './io';
import { escapeControls } from './terminal';

export interface Renderer {
  event(e: BatchEvent): void;
  /** Print a notice (to stderr, so `--json` stdout stays machine-readable). */
  notice(text: string): void;
  /** Stop any live display before the summary. */
  stop(): void;
}

type Style = Parameters<typeof styleText>[0];

/** Colour only on a terminal, and never with NO_COLOR. */
export function painter(stream: { isTTY?: boolean }, env: CliIo['env']): (style: Style, text: string) => string {
  const on = Boolean(stream.isTTY) && env.NO_COLOR === undefined && env.TERM !== 'dumb';
  return (style, text) => (on ? styleText(style, text) : text);
}

/** A path as a person at `cwd` would type it, with control characters escaped (see terminal.ts). */
export function shown(cwd: string, path: string): string {
  const rel = relative(cwd, path);
  if (rel === '') return '.';
  return escapeControls(!rel.startsWith('..') && !isAbsolute(rel) ? rel : path);
}

/** A name or message from outside, safe on a terminal. */
const safe = (text: string | undefined): string => escapeControls(text ?? '');

/** Up-to-date files counted into one `up-to-date` line of `--json` output. */
export const UP_TO_DATE_PER_LINE = 1000;

/**
 * One JSON object per line on stdout. Up-to-date files are counted, not listed:
 * a `{"type":"up-to-date","files":n,"bytes":b}` line stands for the `n` found
 * since the previous one (written every {@link UP_TO_DATE_PER_LINE}, before any
 * other event and at the end), so a rerun of 100,000 files prints ~100 lines.
 */
export function jsonRenderer(io: CliIo): Renderer {
  let files = 0;
  let bytes = 0;
  const line = (e: object): void => void io.stdout.write(`${JSON.stringify(e)}\n`);
  const flush = (): void => {
    if (files === 0) return;
    line({ type: 'up-to-date', files, bytes });
    files = bytes = 0;
  };
  return {
    event: (e) => {
      if (e.type === 'skipped' && e.code === 'up-to-date') {
        files++;
        bytes += e.bytes ?? 0;
        if (files >= UP_TO_DATE_PER_LINE) flush();
        return;
      }
      flush();
      line(e);
    },
    notice: (text) => io.stderr.write(`${text}\n`),
    stop: flush,
  };
}

/** Lines per finished file on stdout; on a terminal also a live progress bar on stderr. */
export function humanRenderer(io: CliIo): Renderer {
  const paint = painter(io.stdout, io.env);
  const live = Boolean(io.stderr.isTTY);
  const inFlight = new Map<string, string>();
  let total = 0;
  let totalBytes = 0;
  let finished = 0;
  let finishedBytes = 0;
  let processedBytes = 0;
  let firstStart: number | undefined;
  let barShown = false;
  const timer = live ? setInterval(() => draw(), 500) : undefined;
  timer?.unref();

  const clearBar = () => {
    if (barShown) io.stderr.write('\r\x1b[2K');
    barShown = false;
  };
  const draw = () => {
    if (!live || total === 0) return;
    const width = Math.max(40, io.stderr.columns ?? 80);
    const elapsed = firstStart ? Date.now() - firstStart : 0;
    const rate = elapsed > 1000 && processedBytes > 0 ? processedBytes / (elapsed / 1000) : 0;
    // A streamed plan's bytes are known only once it is planned: until then the time left goes by files.
    const left = totalBytes > 0 ? (totalBytes - finishedBytes) / rate : ((total - finished) * elapsed) / 1000 / Math.max(1, finished);
    const eta = rate > 0 ? formatDuration(left * 1000) : '…';
    const slots = 20;
    const filled = Math.round((finished / total) * slots);
    const bar = `[${'█'.repeat(filled)}${'░'.repeat(slots - filled)}]`;
    const names = [...inFlight.values()].join(', ');
    let line = `${bar} ${finished}/${total} files · ${rate > 0 ? `${formatBytes(rate)}/s` : '– /s'} · ETA ${eta}${names ? ` · ${names}` : ''}`;
    if (line.length > width - 1) line = `${line.slice(0, width - 2)}…`;
    io.stderr.write(`\r\x1b[2K${line}`);
    barShown = true;
  };
  const print = (text: string) => {
    clearBar();
    io.stdout.write(`${text}\n`);
    draw();
  };
  const done = (bytes: number) => {
    finished++;
    finishedBytes += bytes;
  };

  return {
    notice: (text) => {
      clearBar();
      io.stderr.write(`${escapeControls(text, { keepNewlines: true })}\n`);
      draw();
    },
    stop: () => {
      if (timer) clearInterval(timer);
      clearBar();
    },
    event: (e) => {
      switch (e.type) {
        case 'plan':
        case 'planned':
          total = e.files;
          totalBytes = e.bytes;
          draw();
          return;
        case 'cleanup':
          return print(paint('dim', `Removed ${e.removed.length} partial file(s) left by an interrupted run.`));
        case 'skipped':
          if (e.code === 'up-to-date') {
            done(e.bytes ?? 0);
            draw();
          }
          return;
        case 'start':
          firstStart ??= Date.now();
          inFlight.set(e.input, safe(e.rel.split('/').pop() ?? e.rel));
          return draw();
        case 'phase':
          return;
        case 'waiting':
          return print(paint('yellow', `⏸ ${safe(e.rel)}: ${waitText(e.wait, e.wait.delayMs)}`));
        case 'retry':
          return print(paint('yellow', `↻ ${safe(e.rel)}: ${safe(e.error)} (attempt ${e.attempt} in ${formatDuration(e.delayMs)})`));
        case 'corrected':
          inFlight.delete(e.input);
          processedBytes += e.bytesIn;
          done(e.bytesIn);
          return print(`${paint('green', '✓')} ${safe(e.rel)} → ${shown(io.cwd, e.output)} ${paint('dim', `(${formatBytes(e.bytesOut)}, ${formatDuration(e.durationMs)})`)}`);
        case 'failed':
          inFlight.delete(e.input);
          done(0);
          return print(`${paint('red', '✗')} ${safe(e.rel)}: ${safe(e.error)}`);
        case 'cancelled':
          inFlight.delete(e.input);
          return;
        case 'notice':
          return print(paint('dim', safe(e.message)));
      }
    },
  };
}

/** Where the adaptive jobs at once went (the Web API lowers them after refusals and raises them while the service keeps up). */
function jobsAtOnceLine(j: NonNullable<BatchSummary['jobsAtOnce']>): string {
  if (j.changes === 0) return `Jobs at once: ${j.started} throughout (adaptive; the service refused none)`;
  return `Jobs at once: ${j.ended} at the end (adaptive: started at ${j.started}, lowest ${j.lowest}, ${j.changes} change${j.changes === 1 ? '' : 's'})`;
}

/** Left-out files of a group listed one by one; more are counted in one line. */
const GROUP_LISTED = 3;
/** Left-out paths listed one by one (the rest of them counted). */
const NAMED_LISTED = 20;

type LeftOut = BatchSummary['excludedPaths'][number];

/**
 * Left-out files told in one line when there are more than a few: files that are no photo or video (sidecars,
 * documents) and Live Photos' clips would bury the files the user may want to convert. Told from the summary's
 * counts: it keeps the first paths only.
 */
const GROUPS: { of: (p: LeftOut) => boolean; count: (c: LeftOutCounts) => number; line: (c: LeftOutCounts) => string }[] = [
  { of: (p) => p.reason === NOT_SUPPORTED, count: (c) => c.notMedia, line: (c) => `${c.notMedia} files (${safe(byKind(c.notMediaKinds))}): ${NOT_SUPPORTED}` },
  {
    of: (p) => p.code === 'live-photo',
    count: (c) => c.byCode['live-photo'] ?? 0,
    line: (c) => `${c.byCode['live-photo'] ?? 0} Live Photos' motion clips (beside their stills), left out: they would be corrected and billed as videos; give a clip itself as an input to correct it`,
  },
];

/**
 * The lines of "Left out": each path and why (at most 20), then each group counted. `kept`: the summary's
 * paths (not unreadable), `total` of them left out (not all kept).
 */
function leftOutLines(cwd: string, kept: readonly LeftOut[], counts: LeftOutCounts, total: number): string[] {
  const grouped = GROUPS.filter((group) => group.count(counts) > GROUP_LISTED);
  const named = kept.filter((p) => !grouped.some((group) => group.of(p)));
  const namedTotal = grouped.reduce((n, group) => n - group.count(counts), total);
  const lines = named.slice(0, NAMED_LISTED).map((p) => `${shown(cwd, p.path)}: ${safe(p.reason)}`);
  if (namedTotal > lines.length) lines.push(`… and ${namedTotal - lines.length} more (see --json)`);
  return [...lines, ...grouped.map((group) => group.line(counts))];
}

/** "300 .xmp, 5 .AAE, 1 Thumbs.db and 2 others": files counted by extension (by name without one), most first. */
export function byKind(kinds: Tally): string {
  const sorted = Object.entries(kinds.by).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const listed = sorted.slice(0, 4).map(([kind, n]) => `${n} ${kind}`);
  const others = sorted.slice(4).reduce((sum, [, n]) => sum + n, kinds.others);
  return others > 0 ? `${listed.join(', ')} and ${others} other${others === 1 ? '' : 's'}` : listed.join(', ');
}

/** The closing lines for people. */
export function printSummary(io: CliIo, s: BatchSummary, extra: { report?: string; backupRoots?: string[] }): void {
  const paint = painter(io.stdout, io.env);
  const out = (line = '') => io.stdout.write(`${line}\n`);
  const failed = s.failures;
  // Paths found but not readable failed; the rest were left out on purpose. The summary keeps the first paths, counts all.
  const unreadable = s.excludedPaths.filter((p) => p.code === 'unreadable');
  const leftOut = s.excludedPaths.filter((p) => p.code !== 'unreadable');
  if (s.excluded > 0) {
    out();
    out(`Left out (${s.excluded}):`);
    for (const line of leftOutLines(io.cwd, leftOut, s.excludedCounts, s.excluded)) out(`  ${line}`);
  }
  if (failed.length + (s.excludedCounts.byCode.unreadable ?? 0) > 0) {
    out();
    out(paint('red', `Failed (${s.failed}):`));
    for (const p of unreadable) out(`  ${shown(io.cwd, p.path)}: ${safe(p.reason)}`);
    for (const r of failed) out(`  ${safe(r.rel)}: ${safe(r.error)}`);
    // The summary holds the first failures only (a run of 100,000 files keeps no list of every file).
    const more = s.failed - unreadable.length - failed.length;
    if (more > 0) out(`  … and ${more} more (see --report)`);
  }
  out();
  const parts = [
    paint(s.corrected > 0 ? 'green' : 'reset', `${s.corrected} corrected`),
    `${s.upToDate} up to date`,
    // Left as is on purpose (pfc's own results, outputs that would replace another file): a rerun refuses them again.
    paint(s.failed > 0 ? 'red' : 'reset', `${s.failed} failed${s.refused > 0 ? ` (${s.refused} left as is)` : ''}`),
    `${s.excluded} left out`,
    ...(s.cancelled > 0 ? [paint('yellow', `${s.cancelled} cancelled`)] : []),
  ];
  out(`${s.interrupted ? 'Interrupted' : 'Done'} in ${formatDuration(s.durationMs)}: ${parts.join(', ')} · ${formatBytes(s.bytesIn)} in, ${formatBytes(s.bytesOut)} out`);
  if (s.stoppedBecause) out(paint('yellow', `Stopped early: ${safe(s.stoppedBecause)}`));
  for (const root of s.outputRoots) out(`Output: ${shown(io.cwd, root)}`);
  for (const b of extra.backupRoots ?? []) out(`Originals kept in: ${shown(io.cwd, b)}`);
  if (s.jobsAtOnce) out(jobsAtOnceLine(s.jobsAtOnce));
  if (extra.report) out(`Report: ${shown(io.cwd, extra.report)}`);
  if (s.interrupted) out(paint('yellow', 'Run the same command again to continue where it stopped.'));
  else if (s.stoppedBecause) out(paint('yellow', 'Once that is fixed, run the same command again to continue where it stopped.'));
}
