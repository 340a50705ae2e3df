/** The --report page in a real browser: every before/after thumbnail loads, failures are shown, nothing is fetched from outside. */
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copySamples, emulator, runPfc } from '../cli/helpers';
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
});
