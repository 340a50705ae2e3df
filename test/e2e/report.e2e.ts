/** The --report page in a real browser: every before/after thumbnail loads, failures are shown, nothing is fetched from outside. */
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import type { BatchSummary, FileResult } from '@pfc/batch';
import { writeReport } from '@pfc/batch/report';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copySamples, emulator, runPfc, SAMPLES } from '../cli/helpers';
import { launchBrowser } from './browser';

describe('pfc correct --report in Chromium', () => {
  let emu: Awaited<ReturnType<typeof emulator>>;
  beforeAll(async () => {
    emu = await emulator();
  });
  afterAll(() => emu.close());

  it('shows before and after images side by side for each photo, and the failed one with its reason', async () => {
    const dir = copySamples();
    emu.setFaults({ jobs: { failRate: 1, count: 1 } });
    const report = join(dir, 'report', 'index.html');
    const r = await runPfc(['correct', 'photos', ...emu.webArgs, '--concurrency', '1', '--report', report, '--yes'], { cwd: dir });
    emu.setFaults({});
    expect(r.code, r.stdout + r.stderr).toBe(1);

    const browser = await launchBrowser();
    try {
      const page = await browser.context.newPage();
      const external: string[] = [];
      page.on('request', (req) => {
        if (!req.url().startsWith('file:') && !req.url().startsWith('data:')) external.push(req.url());
      });
      await page.goto(pathToFileURL(report).href);
      // Lazy images decode only near the viewport: make them eager so every one is checked.
      await page.evaluate(() => document.querySelectorAll('img').forEach((img) => img.setAttribute('loading', 'eager')));
      await page.waitForFunction(() => Array.from(document.images).every((img) => img.complete), undefined, { timeout: 60_000 });
      const cards = await page.$$eval('article.card', (els) =>
        els.map((el) => ({
          status: el.getAttribute('data-status'),
          title: el.querySelector('h2')?.textContent,
          images: Array.from(el.querySelectorAll('img')).map((img) => ({ role: img.dataset.role, width: img.naturalWidth, height: img.naturalHeight })),
          error: el.querySelector('.error')?.textContent ?? null,
        })),
      );
      expect(cards.map((c) => c.title).sort()).toEqual(['objects/chelsea.png', 'objects/coffee.jpg', 'outdoors/rocket.jpg', 'portraits/astronaut.jpg', 'portraits/grace_hopper.jpg']);
      const failed = cards.filter((c) => c.status === 'failed');
      expect(failed).toHaveLength(1);
      expect(failed[0]!.error).toMatch(/^job \S+ FAILED/);
      expect(failed[0]!.images.map((i) => i.role)).toEqual(['before']);
      for (const c of cards.filter((x) => x.status === 'corrected')) {
        expect(c.images.map((i) => i.role)).toEqual(['before', 'after']);
        for (const img of c.images) {
          expect(img.width, `${c.title} ${img.role}`).toBeGreaterThan(0);
          expect(img.height, `${c.title} ${img.role}`).toBeGreaterThan(0);
        }
      }
      expect(await page.textContent('.counts')).toMatch(/4 corrected.*1 failed/s);
      expect(external).toEqual([]);
      await page.screenshot({ path: join(dir, 'report.png'), fullPage: true });
    } finally {
      await browser.close();
    }
  });

  it('shows a large run a page at a time, failures first, with thumbnails only on the shown page and loaded lazily', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pfc-report-'));
    const photo = join(dir, 'photo.jpg');
    copyFileSync(join(SAMPLES, 'objects/coffee.jpg'), photo);
    // 3 failures among 253 files; thumbnails for the first 120 (failures first).
    const results: FileResult[] = Array.from({ length: 253 }, (_, i) => {
      const failed = i % 100 === 50;
      return {
        input: photo, output: photo, rel: `set/p${String(i).padStart(3, '0')}.jpg`, status: failed ? 'failed' : 'corrected',
        media: { format: 'jpeg', fileType: 'image', contentType: 'image/jpeg', width: 400, height: 300 }, params: { outputQuality: 80 }, bytesIn: 1000, warnings: [],
        ...(failed ? { error: `job j${i} FAILED: broken`, errorName: 'JobFailedError' } : { bytesOut: 900, durationMs: 20 }),
      };
    });
    const summary: BatchSummary = {
      corrected: 250, skipped: 0, upToDate: 0, excluded: 0, failed: 3, cancelled: 0, bytesIn: 0, bytesOut: 0, durationMs: 1000, interrupted: false, outputRoots: [dir], results, failures: results.filter((r) => r.status === 'failed'), excludedPaths: [],
    };
    const report = await writeReport(join(dir, 'report.html'), summary, { maxThumbnails: 120, thumbnailPx: 64 });

    const browser = await launchBrowser();
    try {
      const page = await browser.context.newPage();
      await page.goto(pathToFileURL(report).href);
      const titles = (list: string) => page.$$eval(`#${list} article.card h2`, (els) => els.map((e) => e.textContent));
      const imgs = (list: string) => page.$$eval(`#${list} article.card img`, (els) => els.map((e) => e.getAttribute('loading')));
      expect(await titles('failures')).toEqual(['set/p050.jpg', 'set/p150.jpg', 'set/p250.jpg']);
      expect((await page.$$eval('#failures article.card .error', (els) => els.map((e) => e.textContent)))[2]).toBe('job j250 FAILED: broken');
      // Before the failures' own section comes the summary; the other files follow, 100 to a page.
      const first = await titles('files');
      expect(first).toHaveLength(100);
      expect(first[0]).toBe('set/p000.jpg');
      expect(first).not.toContain('set/p050.jpg');
      expect(await page.$$eval('article.card', (els) => els.length)).toBe(103);
      // Failures (before only) and the first 117 others have thumbnails, every one lazy.
      expect(await imgs('failures')).toEqual(['lazy', 'lazy', 'lazy']);
      expect(await imgs('files')).toEqual(Array(200).fill('lazy'));
      expect(await page.textContent('#files .pager .where')).toBe('1–100 of 250 · page 1 of 3');

      await page.click('#files .pager button[title="next page"]');
      const second = await titles('files');
      expect(second[0]).toBe('set/p101.jpg');
      expect(second).toHaveLength(100);
      // Thumbnails go to the 3 failures and the first 117 other files: 17 of them are on page 2.
      expect((await imgs('files')).length).toBe(2 * (117 - 100));
      await page.click('#files .pager button[title="last page"]');
      expect(await titles('files')).toHaveLength(50);
      expect(await page.textContent('#files .pager .where')).toBe('201–250 of 250 · page 3 of 3');
      expect(await imgs('files')).toEqual([]);
      expect(await page.$$eval('article.card', (els) => els.length)).toBe(53);
    } finally {
      await browser.close();
    }
  });
});
