/**
 * `processingMs` is the least time a job holds its worker, its real work
 * included — not an extra wait after the work. Checked through `timeTaken`
 * with an engine whose look takes a known time; the bounds are far apart
 * (hundreds of ms either side), so a loaded machine does not fail them:
 * throughput figures belong to the benchmarks.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ImagingEngine } from '../src/index';
import { closeAll, COFFEE, emulator, runJob } from './helpers';

/** An engine whose look takes `ms` of wall time and changes nothing. */
const slowLook = (ms: number): ImagingEngine => ({
  async look(img) {
    await new Promise((r) => setTimeout(r, ms));
    return img;
  },
});

afterAll(closeAll);

describe('processingMs is the whole PROCESSING time', () => {
  it('waits only for what the work left: work 800 ms within processingMs 1500 takes about 1.5 s, not 2.3 s', async () => {
    const emu = await emulator({ processingMs: 1500, engine: slowLook(800) });
    const r = await runJob(emu.web, COFFEE, { cache: false });
    expect(r.status).toBe('COMPLETED');
    // At least processingMs (less a timer's early firing) ...
    expect(r.timeTaken).toBeGreaterThanOrEqual(1.48);
    // ... and well below processingMs + work, which the old extra wait took.
    expect(r.timeTaken).toBeLessThan(2.1);
  });

  it('a job whose work outlasts processingMs takes its own time', async () => {
    const emu = await emulator({ processingMs: 100, engine: slowLook(600) });
    const r = await runJob(emu.web, COFFEE, { cache: false });
    expect(r.status).toBe('COMPLETED');
    expect(r.timeTaken).toBeGreaterThanOrEqual(0.59);
  });
});
