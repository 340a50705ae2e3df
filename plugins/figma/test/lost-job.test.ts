/**
 * A service that restarts while it holds an image's job (hosted service
 * restarts lose their jobs; `JobLostError`): the UI's run loop, through the
 * backend Settings opens, sends the image again to the new one at the same
 * address. Checked in the new service's job record and in the image Figma
 * ends up holding.
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

/** An emulator without an engine (geometry and encoding only), at `ports` when given, with the signing secret of the one it replaces. */
async function service(ports: { webPort?: number; storage?: { port: number } } = {}): Promise<EmulatorHandle> {
  const emu = await startEmulator({ engine: {}, container: false, bgr: false, signingSecret: 'one secret for both', ...ports });
  running.push(emu);
  return emu;
}

describe('a service that restarts while it holds the job', () => {
  it('gets the image again: Figma holds the new service\'s result, and the item says it was sent again', async () => {
    const first = await service();
    // It holds the job (PROCESSING) until it stops.
    first.setFaults({ jobs: { hangRate: 1 } });
    const ports = { webPort: Number(new URL(first.web).port), storage: { port: Number(new URL(first.urls.storage!).port) } };
    const sim = freshSim();
    const node = sim.rect('Photo', [imageFill(sim.addImage(await makeImage(120, 80)))]);
    const originalHash = (node.fills as ImagePaint[])[0]!.imageHash!;
    sim.place(node);
    sim.select(node);
    const backend = openBackend({ backend: 'emulator', emulatorURL: first.web, containerURL: '', bgrURL: '', apiKey: null, bgrLicenceKey: null });
    let lostJob: { inputSha256: string } | undefined;
    let second: Promise<EmulatorHandle> | undefined;
    const updates: ItemUpdate[] = [];
    const { summary } = await runCorrection(await wired(sim), backend, DEFAULT_OPTIONS, new AbortController().signal, {
      onPlan: () => undefined,
      onItem: (_, u) => {
        updates.push(u);
        // A restart at the same address: the new one knows nothing of the job.
        if (u.phase === 'processing' && !second) {
          second = (async () => {
            lostJob = first.jobs()[0];
            await first.close();
            return service(ports);
          })();
        }
      },
    }, { thumbnail: nodeThumbnail });
    const now = await second!;

    expect(summary).toMatchObject({ done: 1, failed: 0 });
    expect(updates.filter((u) => u.phase === 'uploading').length).toBeGreaterThanOrEqual(2);
    expect(updates.find((u) => u.phase === 'done')?.notes).toContain('the service lost the job (it may have restarted), so the image was sent again (attempt 2 of 3)');
    // The new service's job record: one job, completed, from the same image.
    const jobs = now.jobs();
    expect(jobs.map((j) => j.state)).toEqual(['COMPLETED']);
    expect(jobs[0]!.inputSha256).toBe(lostJob!.inputSha256);
    // Figma holds exactly what the new service returned.
    const hash = (node.fills as ImagePaint[])[0]!.imageHash!;
    expect(hash).not.toBe(originalHash);
    const fromService = new Uint8Array(await (await fetch(jobs[0]!.record.correctedFile!)).arrayBuffer());
    expect(Buffer.from(sim.imageBytes(hash)!).equals(Buffer.from(fromService))).toBe(true);
  });
});
