/** The --report page in a real browser: every before/after thumbnail loads, failures are shown, nothing is fetched from outside. */
import { copyFileSync, existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { type BatchSummary, emptyCounts, type FileResult } from '@pfc/batch';
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

  it('shows a large run a page at a time, failures first, loading the other files from the folder beside the page, thumbnails lazily', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pfc-report-'));
    const photo = join(dir, 'photo.jpg');
    copyFileSync(join(SAMPLES, 'objects/coffee.jpg'), photo);
    // 3 failures among 253 files in 3 folders; thumbnails for the first 120 (failures first).
    const summary = syntheticRun(253, photo, (i) => i % 100 === 50, (i) => `set${Math.floor(i / 100)}`);
    const report = await writeReport(join(dir, 'report.html'), summary, { maxThumbnails: 120, thumbnailPx: 64 });
    expect(existsSync(join(dir, 'report.files'))).toBe(true);

    const browser = await launchBrowser();
    try {
      const page = await browser.context.newPage();
      const requests: string[] = [];
      page.on('request', (req) => requests.push(req.url()));
      await page.goto(pathToFileURL(report).href);
      const titles = (where: string) => page.$$eval(`${where} article.card h2`, (els) => els.map((e) => e.textContent));
      const imgs = (where: string) => page.$$eval(`${where} article.card img`, (els) => els.map((e) => e.getAttribute('loading')));
      expect(await titles('#failures')).toEqual(['set0/p050.jpg', 'set1/p150.jpg', 'set2/p250.jpg']);
      expect((await page.$$eval('#failures article.card .error', (els) => els.map((e) => e.textContent)))[2]).toBe('job j250 FAILED: broken');
      // The other files, 100 to a page, from the first data chunk beside the page.
      await page.waitForSelector('#files article.card');
      const first = await titles('#files');
      expect(first).toHaveLength(100);
      expect(first[0]).toBe('set0/p000.jpg');
      expect(first).not.toContain('set0/p050.jpg');
      expect(requests.filter((u) => u.endsWith('.js')).map((u) => u.split('/').at(-1))).toEqual(['c0.js']);
      // Failures (before only) and the first 117 others have thumbnails, every one lazy, from files beside the page.
      expect(await imgs('#failures')).toEqual(['lazy', 'lazy', 'lazy']);
      expect(await imgs('#files')).toEqual(Array(200).fill('lazy'));
      expect(await page.$eval('#files article.card img', (img) => img.getAttribute('src'))).toMatch(/^report\.files\/g[^/]+\/t\d+b\.webp$/);
      await page.evaluate(() => document.querySelectorAll('img').forEach((img) => img.setAttribute('loading', 'eager')));
      await page.waitForFunction(() => Array.from(document.images).every((img) => img.complete && img.naturalWidth > 0), undefined, { timeout: 60_000 });
      expect(await page.textContent('#files > .pager .where')).toBe('1–100 of 250 · page 1 of 3');

      await page.click('#files > .pager button[title="next page"]');
      await page.waitForFunction(() => document.querySelector('#files > main h2')?.textContent === 'set1/p101.jpg');
      expect(await titles('#files')).toHaveLength(100);
      expect((await imgs('#files')).length).toBe(2 * (117 - 100));
      await page.click('#files > .pager button[title="last page"]');
      await page.waitForFunction(() => document.querySelector('#files > .pager .where')?.textContent === '201–250 of 250 · page 3 of 3');
      expect(await titles('#files')).toHaveLength(50);
      expect(await imgs('#files')).toEqual([]);
      expect(await page.$$eval('article.card', (els) => els.length)).toBe(53);

      // The folder index: one folder's files, its failure first.
      await page.click('#folders summary');
      await page.waitForSelector('#folders button.folder');
      expect(await page.$$eval('#folders tr', (els) => els.map((e) => e.textContent))).toEqual([
        'set099 corrected1 failed', 'set199 corrected1 failed', 'set252 corrected1 failed',
      ]);
      await page.click('#folders button.folder >> text=set1');
      await page.waitForFunction(() => document.querySelector('#files > .view')?.textContent?.includes('100 file(s)'));
      const folder = await titles('#files');
      expect(folder).toHaveLength(100);
      expect(folder[0]).toBe('set1/p150.jpg');
      expect(folder.every((t) => t?.startsWith('set1/'))).toBe(true);
      expect(requests.every((u) => u.startsWith('file:') || u.startsWith('data:'))).toBe(true);
    } finally {
      await browser.close();
    }
  });

  it('opens the first page of a 100,000-file report with its failures, and any folder of it, offline', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pfc-report-'));
    const photo = join(dir, 'photo.jpg');
    copyFileSync(join(SAMPLES, 'objects/coffee.jpg'), photo);
    const summary = syntheticRun(100_000, photo, (i) => i % 1000 === 999, (i) => `d${String(Math.floor(i / 100)).padStart(4, '0')}`);
    const report = await writeReport(join(dir, 'report.html'), summary, { maxThumbnails: 20, thumbnailPx: 64 });
    expect(statSync(report).size).toBeLessThan(300_000);

    const browser = await launchBrowser();
    try {
      const page = await browser.context.newPage();
      await page.goto(pathToFileURL(report).href);
      await page.waitForSelector('#files article.card');
      expect(await page.$$eval('#failures article.card', (els) => els.length)).toBe(100);
      expect(await page.textContent('#failures .pager .where')).toBe('1–100 of 100 · page 1 of 1');
      expect(await page.textContent('#files > .pager .where')).toBe('1–100 of 99900 · page 1 of 999');
      await page.click('#files > .pager button[title="last page"]');
      await page.waitForFunction(() => document.querySelector('#files > main h2')?.textContent === 'd0998/p099899.jpg');
      expect(await page.textContent('#files > .pager .where')).toBe('99801–99900 of 99900 · page 999 of 999');
      await page.click('#folders summary');
      expect(await page.textContent('#folders summary')).toBe('Folders (1000)');
      await page.click('#folders > .pager button[title="last page"]');
      await page.click('#folders button.folder >> text=d0999');
      await page.waitForFunction(() => document.querySelector('#files > .view')?.textContent?.includes('100 file(s)'));
      const titles = await page.$$eval('#files > main h2', (els) => els.map((e) => e.textContent));
      expect(titles[0]).toBe('d0999/p099999.jpg');
      expect(titles).toHaveLength(100);
    } finally {
      await browser.close();
    }
  });
});

/** A run of `n` results, each input and output `photo`, as a summary that kept them. */
function syntheticRun(n: number, photo: string, fails: (i: number) => boolean, folder: (i: number) => string): BatchSummary {
  const results: FileResult[] = Array.from({ length: n }, (_, i) => {
    const failed = fails(i);
    return {
      input: photo, output: photo, rel: `${folder(i)}/p${String(i).padStart(n > 1000 ? 6 : 3, '0')}.jpg`, status: failed ? 'failed' : 'corrected',
      media: { format: 'jpeg', fileType: 'image', contentType: 'image/jpeg', width: 400, height: 300 }, params: { outputQuality: 80 }, bytesIn: 1000, warnings: [],
      ...(failed ? { error: `job j${i} FAILED: broken`, errorName: 'JobFailedError' } : { bytesOut: 900, durationMs: 20 }),
    };
  });
  const failures = results.filter((r) => r.status === 'failed');
  return {
    corrected: n - failures.length, skipped: 0, upToDate: 0, excluded: 0, failed: failures.length, refused: 0, cancelled: 0, bytesIn: 0, bytesOut: 0, durationMs: 1000, interrupted: false, outputRoots: [], results, failures, excludedPaths: [], excludedCounts: emptyCounts(),
  };
}
