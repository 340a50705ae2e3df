/**
 * How the panel e2e drives the page like a user (Spectrum widgets, buttons,
 * screenshots) and reads the simulated Photoshop (layers, masks). Bound to the
 * test's page with {@link drivePage}.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { PANEL_DIR } from './e2e-page';
import type { SimApi } from './sim/browser-entry';

declare global {
  interface Window {
    __sim: SimApi;
  }
}

const SCREENSHOTS = join(PANEL_DIR, '../../test-results');

let page: Page;

/** The page every helper below acts on. */
export function drivePage(p: Page): void {
  page = p;
}

/**
 * Wait until `predicate` holds in the page. Polled from Node with plain evaluations: Playwright's own
 * waitForFunction/$$eval run its injected script in the page's world, which needs MutationObserver and
 * requestAnimationFrame, and the strict page has neither (a UXP panel has neither).
 */
export async function until(predicate: () => boolean, timeout = 30_000): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!(await page.evaluate(predicate))) {
    if (Date.now() > deadline) {
      const state = await page.evaluate(() => `${document.getElementById('progress-text')?.textContent ?? ''} | ${document.getElementById('message')?.textContent ?? ''}`);
      throw new Error(`timed out waiting for ${predicate.toString()} (panel: ${state})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export const sim = <T>(fn: (api: SimApi) => T | Promise<T>): Promise<T> =>
  page.evaluate(`(${fn.toString()})(window.__sim)`) as Promise<T>;

export async function layerRgba(docId: number, layerId: number): Promise<Uint8Array> {
  const b64 = await page.evaluate(([d, l]) => window.__sim.layerPixels(d!, l!), [docId, layerId]);
  return new Uint8Array(Buffer.from(b64, 'base64'));
}

export async function layerMask(docId: number, layerId: number): Promise<Uint8Array> {
  const b64 = await page.evaluate(([d, l]) => window.__sim.layerMask(d!, l!), [docId, layerId]);
  return new Uint8Array(Buffer.from(b64, 'base64'));
}

export async function openPhoto(sample: string, title: string, options: Parameters<SimApi['openPhoto']>[2] = {}) {
  return page.evaluate(([url, t, o]) => window.__sim.openPhoto(url as string, t as string, o as never), [`/samples/${sample}`, title, options] as const);
}

/** Click a button and wait for the run to end: its outcomes listed, the progress area hidden again. */
export async function runButton(selector: string): Promise<void> {
  await page.click(selector); // the click handler clears the previous outcomes synchronously
  await until(
    () => document.querySelectorAll('#outcomes li').length > 0 && document.getElementById('progress-area')!.classList.contains('hidden'),
    120_000,
  );
}

/** The panel in Photoshop's dark and light themes (prefers-color-scheme; Chromium knows dark and light) → test-results/<name>-dark|light.png. */
export async function themeScreenshots(name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  await page.emulateMedia({ colorScheme: 'dark' });
  expect(await background()).toBe('rgb(50, 50, 50)');
  await page.screenshot({ path: join(SCREENSHOTS, `${name}-dark.png`), fullPage: true });
  await page.emulateMedia({ colorScheme: 'light' });
  expect(await background()).toBe('rgb(240, 240, 240)');
  await page.screenshot({ path: join(SCREENSHOTS, `${name}-light.png`), fullPage: true });
  await page.emulateMedia({ colorScheme: 'dark' });
}

/** Open a Spectrum picker and choose the item with this label, as a user does (sp-dropdown.md). */
export async function choose(pickerId: string, label: string): Promise<void> {
  await page.click(`#${pickerId}`);
  await page.click(`#${pickerId} sp-menu-item:text-is("${label}")`);
  expect(await page.textContent(`#${pickerId} >> [data-part=label]`)).toBe(label);
}

/** Type into a Spectrum text field (its own input, inside the widget). */
export async function type(fieldId: string, text: string): Promise<void> {
  await page.fill(`#${fieldId} input`, text);
}

/** Drag a Spectrum slider's handle to `value` with the mouse (press on the handle, move, release). */
export async function drag(sliderId: string, value: number): Promise<void> {
  const [min, max] = await page.evaluate((id) => [Number(document.getElementById(id)!.getAttribute('min')), Number(document.getElementById(id)!.getAttribute('max'))], sliderId);
  const track = (await page.locator(`#${sliderId} [data-part=track]`).boundingBox())!;
  const handle = (await page.locator(`#${sliderId} [data-part=handle]`).boundingBox())!;
  const y = track.y + track.height / 2;
  await page.mouse.move(handle.x + handle.width / 2, y);
  await page.mouse.down();
  await page.mouse.move(track.x + (track.width * (value - min)) / (max - min), y, { steps: 5 });
  await page.mouse.up();
}

export const disabled = (id: string) => page.evaluate((i) => document.getElementById(i)!.hasAttribute('disabled'), id);

export async function outcomes(): Promise<{ status: string; text: string }[]> {
  return page.evaluate(() => [...document.querySelectorAll('#outcomes li')].map((li) => ({ status: li.className, text: li.textContent ?? '' })));
}
