/**
 * The report of a large run (100,000 synthetic results, no job run): a small
 * first page with the summary and every failure, every file reachable through
 * the lists and the folder index, thumbnails as files beside the page, and a
 * companion folder that only ever holds what pfc wrote.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type BatchSummary, BatchUsageError, checkReportPath, emptyCounts, type FileResult } from '../src/index';
import { writeReport } from '../src/report';
import { REPORT_FILES_MARKER } from '../src/report-store';
import { tempDir } from './helpers';
import { readReport } from './report-reader';

const SAMPLES = join(import.meta.dirname, '../../../samples');

/** `n` results, 100 a folder, one in `failEvery` failed; every input and output is `photo`. */
function synthetic(n: number, photo: string, failEvery: number): BatchSummary {
  const params = { outputQuality: 80 };
  const media = { format: 'jpeg', fileType: 'image', contentType: 'image/jpeg', width: 96, height: 64 } as const;
  const results: FileResult[] = Array.from({ length: n }, (_, i) => {
    const failed = i % failEvery === 7;
    return {
      input: photo, output: photo, rel: `d${String(Math.floor(i / 100)).padStart(4, '0')}/p${String(i).padStart(6, '0')}.jpg`, status: failed ? 'failed' : 'up-to-date',
      media, params, bytesIn: 1000, warnings: [], ...(failed ? { error: `job j${i} FAILED: broken`, errorName: 'JobFailedError' } : { bytesOut: 900, durationMs: 20 }),
    };
  });
  const failures = results.filter((r) => r.status === 'failed');
  return {
    corrected: 0, skipped: n - failures.length, upToDate: n - failures.length, excluded: 0, failed: failures.length, refused: 0, cancelled: 0, bytesIn: 0, bytesOut: 0,
    durationMs: 1000, interrupted: false, outputRoots: ['/out'], results, failures, excludedPaths: [], excludedCounts: emptyCounts(),
  };
}

describe('writeReport at 100,000 files', () => {
  it('writes a first page of < 400 KB with the summary and every failure; every file is reachable through the lists and the folder index', async () => {
    const dir = tempDir();
    const photo = join(dir, 'photo.jpg');
    copyFileSync(join(SAMPLES, 'objects/coffee.jpg'), photo);
    const n = 100_000;
    const summary = synthetic(n, photo, 250);
    const page = await writeReport(join(dir, 'report.html'), summary, { maxThumbnails: 30, thumbnailPx: 48 });

    // The first page: small, with the counts and every failure in it.
    expect(statSync(page).size).toBeLessThan(400_000);
    const report = readReport(page);
    expect(report.html).toContain(`<li><b>${summary.upToDate}</b> up to date</li>`);
    expect(report.html).toContain(`<li><b>${summary.failed}</b> failed</li>`);
    expect(report.inline).toEqual(['f0']);
    expect(report.meta.failures).toEqual({ total: 400, chunks: 1 });
    const failures = report.chunk('f0');
    expect(failures.map((r) => r[0])).toEqual(summary.failures.map((r) => r.rel));
    expect(failures.every((r) => r[1] === 'failed' && /^job j\d+ FAILED: broken$/.test(r[10]))).toBe(true);

    // Every file once, through the lists; and through the folder index, in its folder.
    const all = [...report.list('f'), ...report.list('c')];
    expect(all).toHaveLength(n);
    expect(new Set(all.map((r) => r[0])).size).toBe(n);
    const folders = report.folders();
    expect(folders).toHaveLength(1000);
    let reached = 0;
    folders.forEach(([name, , upToDate, failed, , chunks], id) => {
      const rows = chunks.flatMap((c) => report.chunk(c)).filter((r) => r[15] === id);
      expect(rows.every((r) => r[0].startsWith(`${name}/`))).toBe(true);
      expect(rows.length).toBe(100);
      expect(rows.filter((r) => r[1] === 'failed').length).toBe(failed);
      expect(rows.filter((r) => r[1] === 'up-to-date').length).toBe(upToDate);
      reached += rows.length;
    });
    expect(reached).toBe(n);

    // Thumbnails: the failures first, then the first others, as files beside the page (none in the page).
    expect(report.html).not.toContain('data:image');
    const withThumbs = all.filter((r) => r[12] !== 0);
    expect(withThumbs).toHaveLength(30);
    expect(withThumbs.filter((r) => r[1] === 'failed')).toHaveLength(30);
    for (const r of withThumbs) {
      const [src, w, h] = r[12] as [string, number, number];
      expect(src).toMatch(/^report\.files\/g[0-9a-z]+-[0-9a-f]+\/t\d+b\.webp$/);
      expect(report.file(src)?.length).toBeGreaterThan(0);
      expect([w, h]).toEqual([600, 400]);
    }
  }, 120_000);

  it('keeps one generation of data beside the page, removes it when a small report replaces it, and never touches a folder pfc did not make', async () => {
    const dir = tempDir();
    const photo = join(dir, 'photo.jpg');
    copyFileSync(join(SAMPLES, 'objects/coffee.jpg'), photo);
    const page = join(dir, 'report.html');
    const companion = join(dir, 'report.files');
    const generations = () => readdirSync(companion).filter((n) => n !== REPORT_FILES_MARKER);

    await writeReport(page, synthetic(2500, photo, 100), { maxThumbnails: 0 });
    const first = generations();
    expect(first).toHaveLength(1);
    // A file of the user's in the folder stays; the earlier generation goes once the new page is in place.
    writeFileSync(join(companion, 'notes.txt'), 'mine');
    await writeReport(page, synthetic(3000, photo, 100), { maxThumbnails: 0 });
    const second = generations().filter((n) => n !== 'notes.txt');
    expect(second).toHaveLength(1);
    expect(second[0]).not.toBe(first[0]);
    const report = readReport(page);
    expect(report.list('c').length + report.list('f').length).toBe(3000);

    // A run that fits one page: its data in the page, the old generation gone, the user's file kept.
    await writeReport(page, synthetic(10, photo, 100), { maxThumbnails: 0 });
    expect(readReport(page).meta.base).toBe('');
    expect(generations()).toEqual(['notes.txt']);
    // Without the user's file the folder itself goes.
    const other = join(dir, 'other.html');
    await writeReport(other, synthetic(500, photo, 100), { maxThumbnails: 0 });
    expect(existsSync(join(dir, 'other.files'))).toBe(true);
    await writeReport(other, synthetic(5, photo, 100), { maxThumbnails: 0 });
    expect(existsSync(join(dir, 'other.files'))).toBe(false);

    // A folder named like the companion that pfc did not make: refused before the run, left as it is.
    mkdirSync(join(dir, 'mine.files'));
    writeFileSync(join(dir, 'mine.files/photo.jpg'), 'x');
    await expect(checkReportPath(join(dir, 'mine.html'))).rejects.toThrow(BatchUsageError);
    await expect(writeReport(join(dir, 'mine.html'), synthetic(500, photo, 100))).rejects.toThrow(/mine\.files, which exists and is not a folder pfc made/);
    expect(readdirSync(join(dir, 'mine.files'))).toEqual(['photo.jpg']);
    expect(existsSync(join(dir, 'mine.html'))).toBe(false);
  }, 60_000);
});
