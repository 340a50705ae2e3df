/**
 * A user's steps through the plugin, shared by the guard tests: a run of the
 * UI's messages with every result accepted, and the Restore command in a
 * later session.
 */
import { expect } from 'vitest';
import type { ApplyResult } from '../src/shared/messages';
import { DEFAULT_OPTIONS, type RunOptions } from '../src/shared/run-options';
import { connect, type Connected } from './helpers';
import { imageFill, type SimFigma } from './sim/figma';
import type { SimNode } from './sim/nodes';

/** The `run/plan` parameters for the default options changed by `o`. */
export const opts = (o: Partial<RunOptions> = {}) => ({ options: { ...DEFAULT_OPTIONS, ...o } });

/** The keeper a correction in place adds at the end of a layer's fills: a hidden paint of the original (keepers.ts), as Figma stores it. */
export const keeperOf = (original: string): ImagePaint => imageFill(original, { visible: false });

/** A layer's fills as the user removes the hidden ones in the Fill panel (a keeper among them). */
export const withoutHiddenFills = (node: { fills: unknown }): Paint[] => (node.fills as Paint[]).filter((p) => p.visible !== false);

/** The image hashes of a layer's fills, in order (the type of a fill without one). */
export const hashesOf = (node: { fills: unknown }) => (node.fills as Paint[]).map((p) => (p.type === 'IMAGE' ? p.imageHash : p.type));

/** Plan the selection with `options` and put the result `bytes` in for the image `hash`, then end the run. */
export async function correctWith(t: Connected, hash: string, bytes: Uint8Array, options: Partial<RunOptions> = {}): Promise<ApplyResult> {
  const plan = await t.request('run/plan', opts(options));
  const job = plan.images.find((j) => j.hash === hash) ?? plan.images[0]!;
  const r = await t.put({ runId: plan.runId, hash: job.hash, bytes, relaunchNote: 'Perfectly Clear: preset Universal' });
  await t.request('run/end', { runId: plan.runId, summary: { done: 1, failed: 0, skipped: 0, rejected: 0, cancelled: false } });
  return r;
}

/** The Restore command (a later session) on `layers`; its notification. */
export async function restore(sim: SimFigma, ...layers: SimNode[]): Promise<string | undefined> {
  sim.closePlugin();
  sim.select(...layers);
  const shown = sim.notifications.length;
  await connect(sim, { command: 'restore' });
  await expect.poll(() => sim.notifications.length).toBe(shown + 1);
  return sim.notifications.at(-1)?.message;
}

/**
 * The user clicks Why on Restore's toast: the window's statements as it shows them (its heading, then each item),
 * read from the page the plugin opened with the markup taken off and its characters decoded.
 */
export function restoreWhy(sim: SimFigma): string[] {
  expect(sim.notifications.at(-1)?.button).toBe('Why');
  sim.clickToastButton();
  const html = sim.shownHtml ?? '';
  expect(sim.shownWith?.title).toBe('Perfectly Clear: Restore');
  const decode = (text: string) => text.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)));
  return [...html.matchAll(/<(h1|li)>(.*?)<\/\1>/g)].map((m) => decode(m[2]!));
}

