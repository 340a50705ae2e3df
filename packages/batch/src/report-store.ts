/**
 * The report's companion folder: a report too large for one page keeps its
 * file rows and thumbnails next to the page, in `<page name>.files/`, which
 * the page loads on demand with `<script src>` (a `file://` page in Chromium
 * may not `fetch` or `XMLHttpRequest` other local files, but it may run
 * scripts beside it, as a page saved "complete" does).
 *
 * Each write goes to a fresh generation folder inside it; only once the new
 * page is renamed into place are the earlier generations removed, so the page
 * on disk always points at data that exists. Only folders pfc made are ever
 * written to or removed: the companion folder and each generation carry a
 * marker file, and a companion folder without it is refused before the run.
 */
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, rm, rmdir, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { BatchUsageError } from './errors';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { writeFileAtomic, writeStreamAtomic } from './files';
import type { ChunkWriter } from './report-data';

/** Marker file in the companion folder and in each of its generations: pfc made them. */
export const REPORT_FILES_MARKER = '.pfc-report';

/** A generation folder's name: `g`, a base-36 time and random hex. */
const GENERATION = /^g[0-9a-z]+-[0-9a-f]+$/;

/** The companion folder of the report page `page`: `report.html` → `report.files`. */
export function companionDir(page: string): string {
  return join(dirname(page), `${basename(page).replace(/\.html?$/i, '')}.files`);
}

/**
 * Throws `BatchUsageError` (`bad-report`) when the companion folder of `page`
 * exists and is not one pfc made (no marker), so a report never writes into
 * or removes a user's folder.
 */
export async function checkCompanionDir(page: string, given: string): Promise<void> {
  const dir = companionDir(page);
  const info = await lstat(dir).catch(() => undefined);
  if (!info) return;
  if (info.isDirectory() && (await isMarked(dir))) return;
  throw new BatchUsageError(`--report ${given} keeps its larger data in ${dir}, which exists and is not a folder pfc made; choose another report name`, 'bad-report');
}

async function isMarked(dir: string): Promise<boolean> {
  return (await lstat(join(dir, REPORT_FILES_MARKER)).catch(() => undefined))?.isFile() ?? false;
}

/** One write of a report's companion data: a generation folder, committed or abandoned. */
export class ReportFiles {
  private constructor(
    /** The companion folder. */
    readonly dir: string,
    /** This write's generation folder (absolute). */
    readonly generation: string,
  ) {}

  /** Make the companion folder (if new) and a fresh generation folder in it. */
  static async open(page: string): Promise<ReportFiles> {
    await checkCompanionDir(page, page);
    const dir = companionDir(page);
    await mkdir(dir, { recursive: true });
    if (!(await isMarked(dir))) await writeFileAtomic(join(dir, REPORT_FILES_MARKER), 'pfc batch report data\n', { durable: false });
    const name = `g${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
    const generation = join(dir, name);
    await mkdir(generation);
    await writeFileAtomic(join(generation, REPORT_FILES_MARKER), '', { durable: false });
    return new ReportFiles(dir, generation);
  }

  /** Address of a file of this generation relative to the page, URL-encoded. */
  href(name: string): string {
    return [basename(this.dir), basename(this.generation), name].map(encodeURIComponent).join('/');
  }

  /**
   * The writer of one data chunk: the script `<name>.js` that hands its rows
   * to the page (`pfcReportChunk(name, rows)`), streamed a row at a time to a
   * temporary file, flushed to disk and renamed at its end, before the page
   * that points at it is written.
   */
  openChunk(name: string): ChunkWriter {
    const body = new PassThrough();
    const done = writeStreamAtomic(join(this.generation, `${name}.js`), body);
    // Its error is thrown by the next add or by end; until then it must not count as unhandled.
    done.catch(() => undefined);
    let first = true;
    body.write(`pfcReportChunk(${JSON.stringify(name)},[`);
    return {
      add: async (row) => {
        const more = body.write(first ? row : `,${row}`);
        first = false;
        if (!more) await Promise.race([once(body, 'drain'), done]);
      },
      end: async () => {
        body.end(']);\n');
        await done;
      },
    };
  }

  /** Write a thumbnail of this generation; not flushed to disk (hundreds of flushes for pictures a rerun with --report makes again). */
  async writeThumbnail(name: string, webp: Uint8Array): Promise<void> {
    await writeFileAtomic(join(this.generation, name), webp, { durable: false });
  }

  /** The new page is in place: remove the earlier generations (those pfc marked). */
  async commit(): Promise<void> {
    await removeGenerations(this.dir, basename(this.generation));
  }

  /** The write failed: remove this generation; the earlier page and its data stay. */
  async abandon(): Promise<void> {
    await rm(this.generation, { recursive: true, force: true });
  }
}

/**
 * A report that fits in its page was written over one that had a companion
 * folder: remove that folder's generations and, when nothing else is left in
 * it, the folder itself.
 */
export async function removeCompanion(page: string): Promise<void> {
  const dir = companionDir(page);
  if (!(await lstat(dir).catch(() => undefined))?.isDirectory() || !(await isMarked(dir))) return;
  await removeGenerations(dir, undefined);
  if ((await readdir(dir)).every((n) => n === REPORT_FILES_MARKER)) {
    await unlink(join(dir, REPORT_FILES_MARKER)).catch(() => undefined);
    await rmdir(dir).catch(() => undefined);
  }
}

async function removeGenerations(dir: string, keep: string | undefined): Promise<void> {
  for (const name of await readdir(dir)) {
    if (name === keep || !GENERATION.test(name)) continue;
    const path = join(dir, name);
    if ((await lstat(path)).isDirectory() && (await isMarked(path))) await rm(path, { recursive: true, force: true });
  }
}
