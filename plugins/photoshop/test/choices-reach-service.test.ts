/**
 * The panel's choices, through `runCorrections` and the real Web API client,
 * against the emulator: checked in the service's own job record and in the
 * pixels of the layer the user gets, not in the parameters the panel built.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CHOICES, toParams } from '../src/correct/options';
import { runCorrections } from '../src/correct/run';
import { resolveTargets } from '../src/correct/targets';
import { compositeOf } from './sim/index';
import { emulatorForFile } from './emulator-engine';
import { loadSample, sameBytes, simHost } from './helpers';

const emulator = emulatorForFile();

describe('choices reach the service and show in the result layer', () => {
  it('a background colour: the service is asked for it, and the new layer shows the subject on that colour, the source untouched', async () => {
    const { host, sim } = simHost();
    const photo = await loadSample('portraits/grace_hopper.jpg', 160);
    const doc = sim.openDocument({ title: 'grace_hopper.jpg', width: photo.width, height: photo.height, pixels: photo.pixels, channels: 3 });
    const source = doc.layers[0]!.pixels!.slice();
    const before = emulator.handle().jobs().length;

    const params = toParams({ ...DEFAULT_CHOICES, preset: 'Pro', background: 'colour', backgroundColour: '#ff0000' });
    const outcomes = await runCorrections(host, emulator.backend(), resolveTargets(host, 'document'), params);
    expect(outcomes).toMatchObject([{ status: 'done', message: 'added layer "Perfectly Clear: Pro, background #ff0000"' }]);

    const jobs = emulator.handle().jobs().slice(before);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.requested).toMatchObject({ preset: 'Pro', removeBackground: true, bgColor: '#ff0000' });

    // What the user sees: the corrected layer alone, its corner (background) red, its centre (subject) not.
    const shown = compositeOf(doc, doc.layers.slice(0, 1));
    const px = (x: number, y: number) => [...shown.subarray((y * doc.width + x) * 4, (y * doc.width + x) * 4 + 4)];
    for (const [x, y] of [[1, 1], [doc.width - 2, 1], [1, doc.height - 2]] as const) {
      const [r, g, b, a] = px(x, y);
      expect([r! > 240, g! < 20, b! < 20, a], `pixel ${x},${y}`).toEqual([true, true, true, 255]);
    }
    const [r, g, b] = px(doc.width >> 1, doc.height >> 1);
    expect(r! > 240 && g! < 20 && b! < 20).toBe(false);
    expect(sameBytes(doc.layers[1]!.pixels!, source), 'the source layer is untouched').toBe(true);
  });
});
