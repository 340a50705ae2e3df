/**
 * Preview while Photoshop is busy: a dialog the user has open, or another plug-in's modal scope. The preview reads
 * as a correction does, so it waits for Photoshop as long as reading for a correction does, and says the same when
 * Photoshop stays busy: what was not done and what to do. Nothing is sent meanwhile, no job is paid for.
 */
import { describe, expect, it } from 'vitest';
import { makePreview } from '../src/correct/preview';
import { emulator, PARAMS, photoWith, serviceCounts } from './press';

describe('Preview while Photoshop is busy', () => {
  it.each([
    ['Photoshop 25.10 or later, which retries itself for the timeOut asked', true],
    ['Photoshop before 25.10, where the panel retries', false],
  ])('waits for a dialog closed after a moment, then previews (%s)', async (_, retriesForTimeOut) => {
    const { host, sim } = await photoWith();
    sim.core.retriesForTimeOut = retriesForTimeOut;
    sim.core.heldByOther = 'com.example.other';
    setTimeout(() => (sim.core.heldByOther = undefined), 1500);
    const preview = await makePreview(host, emulator.backend(), PARAMS, 'document');
    expect(preview.after).toMatch(/^data:image\/jpeg;base64,/);
  });

  it('when Photoshop stays busy, says so after the same wait as reading for a correction, and sends nothing', async () => {
    const { host, sim, doc } = await photoWith();
    sim.core.heldByOther = 'com.example.other';
    const before = serviceCounts();
    const started = Date.now();
    await expect(makePreview(host, emulator.backend(), PARAMS, 'document')).rejects.toThrow(
      /^Photoshop stayed busy with another plug-in or a dialog for 10 s, so nothing was read or sent \(.*com\.example\.other.*\); close the dialog and try again$/,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(10_000);
    expect(serviceCounts()).toEqual(before);
    expect([doc.layers.length, doc.history.length]).toEqual([1, 1]);
  }, 30_000);

  it('Cancel in the panel while it waits ends the wait at once, though Photoshop (25.10+) retries itself, and sends nothing', async () => {
    const { host, sim } = await photoWith();
    sim.core.heldByOther = 'com.example.other';
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 300);
    const before = serviceCounts();
    const started = Date.now();
    await expect(makePreview(host, emulator.backend(), PARAMS, 'document', abort.signal)).rejects.toThrow('cancelled');
    expect(Date.now() - started).toBeLessThan(3000);
    expect(serviceCounts()).toEqual(before);
  });
});
