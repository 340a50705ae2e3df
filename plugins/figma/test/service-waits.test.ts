/**
 * The service makes an image wait (429 with `Retry-After`: too many jobs at once, or a request rate): the
 * image's row says so and counts the wait down, the phase comes back as the request is made again, and the
 * run ends with the corrected image in Figma. Cancel during such a wait ends the run at once. Through the
 * backend Settings open and the UI's run loop, against the emulator, whose injected `Retry-After` holds
 * (a request sent before it has passed is refused again, counted as `earlyRetry`).
 */
import { startEmulator, type EmulatorHandle } from '@pfc/emulator';
import { afterEach, describe, expect, it } from 'vitest';
import { openBackend } from '../src/ui/backend';
import { DEFAULT_OPTIONS } from '../src/ui/options';
import { runCorrection, type ItemUpdate } from '../src/ui/runner';
import { freshSim, makeImage, nodeThumbnail, wired } from './helpers';
import { imageFill } from './sim/figma';

const running: EmulatorHandle[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((e) => e.close()));
});

/** The emulator (no engine: geometry and encoding only), and one photo selected in a fresh document. */
async function photoAgainstService() {
  const emu = await startEmulator({ engine: {}, container: false, bgr: false });
  running.push(emu);
  const sim = freshSim();
  const node = sim.rect('Photo', [imageFill(sim.addImage(await makeImage(120, 80)))]);
  sim.place(node);
  sim.select(node);
  const backend = openBackend({ backend: 'emulator', emulatorURL: emu.web, containerURL: '', bgrURL: '', apiKey: null, bgrLicenceKey: null });
  return { emu, sim, node, backend };
}

describe('the service makes an image wait', () => {
  it('the row says why and counts down, the phase comes back, and the corrected image is put back', async () => {
    const { emu, sim, node, backend } = await photoAgainstService();
    const originalHash = (node.fills as ImagePaint[])[0]!.imageHash!;
    // The upload ticket refused for the request rate (1 s), then the job start for the jobs at once (2 s).
    emu.setFaults({ routes: { upload: { rate429: 1, count: 1, retryAfterSeconds: 1 }, pfc: { rate429: 1, count: 1, retryAfterSeconds: 2 } } });
    const updates: ItemUpdate[] = [];
    const { summary } = await runCorrection(await wired(sim), backend, DEFAULT_OPTIONS, new AbortController().signal, {
      onPlan: () => undefined,
      onItem: (_, u) => updates.push(u),
    }, { thumbnail: nodeThumbnail });

    const shown = updates.map((u) => u.waiting ?? u.phase);
    // The ticket's wait (a request rate, a counted retry of the request), then the phase again.
    expect(shown.slice(0, 5)).toEqual(['reading', 'reading', 'uploading', 'Service busy (rate limited) — retrying in 1 s (attempt 2 of 3)', 'uploading']);
    // The job start's wait (the jobs at once; Retry-After 2 s plus the client's spread of up to 20 %), counted down a second at a time.
    const jobWait = shown.slice(5, shown.indexOf('uploading', 5));
    expect(jobWait.map((t) => /^Service busy \(too many jobs at once\) — retrying in (\d) s$/.exec(t)?.[1])).toEqual(jobWait.length === 3 ? ['3', '2', '1'] : ['2', '1']);
    const after = shown.slice(5 + jobWait.length + 1);
    expect(new Set(after.slice(0, -4))).toEqual(new Set(['processing']));
    expect(after.slice(-4)).toEqual(['downloading', 'ready', 'applying', 'done']);
    // A wait is said in the phase it interrupts.
    expect(updates.filter((u) => u.waiting).every((u) => u.phase === 'uploading')).toBe(true);
    // Each wait was the service's: nothing was sent again before its Retry-After had passed.
    expect(emu.stats().faults).toMatchObject({ '429': 2, earlyRetry: 0 });
    expect(summary).toMatchObject({ done: 1, failed: 0, cancelled: false });
    expect((node.fills as ImagePaint[])[0]!.imageHash).not.toBe(originalHash);
  }, 20_000);

  it('Cancel during a wait ends the run at once; the countdown stops with it', async () => {
    const { emu, sim, node, backend } = await photoAgainstService();
    const originalHash = (node.fills as ImagePaint[])[0]!.imageHash!;
    emu.setFaults({ routes: { pfc: { rate429: 1, count: 1, retryAfterSeconds: 60 } } });
    const controller = new AbortController();
    const updates: ItemUpdate[] = [];
    // Timed from the Cancel: the reading and the upload before the wait take what the machine's load makes them.
    let cancelledAt: number | undefined;
    const { summary } = await runCorrection(await wired(sim), backend, DEFAULT_OPTIONS, controller.signal, {
      onPlan: () => undefined,
      onItem: (_, u) => {
        updates.push(u);
        if (u.waiting) {
          cancelledAt ??= Date.now();
          controller.abort();
        }
      },
    }, { thumbnail: nodeThumbnail });
    expect(Date.now() - cancelledAt!).toBeLessThan(5_000);
    expect(summary).toMatchObject({ done: 0, cancelled: true });
    // Retry-After 60 s, plus the client's spread of up to 20 %.
    expect(updates.find((u) => u.waiting)?.waiting).toMatch(/^Service busy \(too many jobs at once\) — retrying in 1:[01]\d$/);
    // Nothing after the row's last word: the countdown's timer went with the run.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(updates.at(-1)).toEqual({ phase: 'cancelled' });
    expect((node.fills as ImagePaint[])[0]!.imageHash).toBe(originalHash);
    expect(emu.jobs()).toEqual([]);
  }, 20_000);
});
