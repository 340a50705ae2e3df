/**
 * The UI's run loop against the real main thread on the simulated figma,
 * with a scripted backend: per-image failures, cancel, the planned resize in
 * the request, and the option → parameter mapping checked by core's rules.
 */
import { JobFailedError, UserAbortError, validatePfcParams, type CorrectionBackend, type CorrectionResult, type PfcParams } from '@pfc/core';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { openBackend } from '../src/ui/backend';
import { DEFAULT_OPTIONS, describeOptions, toPfcParams, type RunOptions } from '../src/ui/options';
import { runCorrection, type ItemUpdate } from '../src/ui/runner';
import { freshSim, makeImage, streamOf, wired } from './helpers';
import { imageFill, SimFigma } from './sim/figma';

/** A backend that "corrects" by inverting the image (or resizing to `long`), and fails for inputs of a given width. */
function scriptedBackend(opts: { failWidth?: number; hang?: boolean } = {}) {
  const calls: PfcParams[] = [];
  const backend: CorrectionBackend = {
    kind: 'web',
    validate: (p) => validatePfcParams(p as Record<string, unknown>),
    async correct(input, params, o = {}): Promise<CorrectionResult> {
      calls.push(params);
      o.onProgress?.({ phase: 'uploading' });
      if (opts.hang) {
        await new Promise((_, reject) => {
          if (o.signal?.aborted) reject(new UserAbortError());
          o.signal?.addEventListener('abort', () => reject(new UserAbortError()));
        });
      }
      const img = sharp(input as Uint8Array);
      if ((await img.metadata()).width === opts.failWidth) throw new JobFailedError('job-1', 'FAILED', 'no faces found', {});
      const out = params.long ? img.resize(params.long, params.long, { fit: 'inside' }) : img.negate();
      return { body: streamOf(new Uint8Array(await out.jpeg().toBuffer())), contentType: 'image/jpeg', backend: 'web', warnings: [], info: {} };
    },
  };
  return { backend, calls };
}

async function documentWith(sim: SimFigma, widths: number[]) {
  const nodes = [];
  for (const w of widths) nodes.push(sim.rect(`W${w}`, [imageFill(sim.addImage(await makeImage(w, 40)))]));
  sim.place(...nodes);
  sim.select(...nodes);
  return nodes;
}

describe('runCorrection (UI run loop)', () => {
  it('corrects each image, reports a failed one and finishes the rest, in one undo step', async () => {
    const sim = freshSim();
    const nodes = await documentWith(sim, [50, 60, 70]);
    const { backend, calls } = scriptedBackend({ failWidth: 60 });
    const updates: [string, ItemUpdate][] = [];
    const { summary, message } = await runCorrection(await wired(sim), backend, DEFAULT_OPTIONS, new AbortController().signal, {
      onPlan: () => undefined,
      onItem: (hash, u) => updates.push([hash, u]),
    });
    expect(summary).toEqual({ done: 2, failed: 1, skipped: 0, rejected: 0, cancelled: false });
    expect(message).toBe('2 images corrected, 1 failed');
    expect(calls).toHaveLength(3);
    const failed = updates.find(([, u]) => u.phase === 'failed')?.[1];
    expect(failed?.error).toBe('The service could not correct this image: no faces found');
    expect(sim.undoSteps).toHaveLength(1);
    const changed = nodes.filter((n) => (n.fills as ImagePaint[])[0]?.imageHash !== undefined && sim.undoSteps[0]?.includes(`fills ${n.id}`));
    expect(changed.map((n) => n.name).sort()).toEqual(['W50', 'W70']);
  });

  it('sends the resize the main thread planned to fit 4096 px', async () => {
    const sim = freshSim();
    const [node] = await documentWith(sim, [2000]);
    const { backend, calls } = scriptedBackend();
    const options: RunOptions = { ...DEFAULT_OPTIONS, resize: { kind: 'scale', percent: 300 } };
    const updates: ItemUpdate[] = [];
    await runCorrection(await wired(sim), backend, options, new AbortController().signal, { onPlan: () => undefined, onItem: (_, u) => updates.push(u) });
    expect(calls[0]).toMatchObject({ preset: 'Universal', long: 4096 });
    expect(calls[0]?.scale).toBeUndefined();
    expect(updates.find((u) => u.phase === 'done')?.notes?.[0]).toMatch(/300 % of 2000×40.*4096/);
    const out = sim.imageBytes((node!.fills as ImagePaint[])[0]!.imageHash!);
    expect((await sharp(out!).metadata()).width).toBe(4096);
  });

  it('cancel aborts what is in flight and starts nothing new; nothing changes', async () => {
    const sim = freshSim();
    await documentWith(sim, [50, 60, 70, 80]);
    const { backend, calls } = scriptedBackend({ hang: true });
    const controller = new AbortController();
    const phases: string[] = [];
    const done = runCorrection(await wired(sim), backend, DEFAULT_OPTIONS, controller.signal, {
      onPlan: () => undefined,
      onItem: (_, u) => {
        phases.push(u.phase);
        // Cancel once both lanes are uploading.
        if (phases.filter((p) => p === 'uploading').length === 2) controller.abort();
      },
    });
    const { summary } = await done;
    expect(summary).toEqual({ done: 0, failed: 0, skipped: 0, rejected: 0, cancelled: true });
    expect(calls).toHaveLength(2);
    expect(phases.filter((p) => p === 'cancelled')).toHaveLength(4);
    expect(sim.undoSteps).toHaveLength(0);
    expect(sim.notifications.at(-1)?.message).toBe('Cancelled: 0 images corrected');
  });
});

describe('options and backends', () => {
  it('maps every form combination to parameters core accepts', () => {
    const combos: RunOptions[] = [
      DEFAULT_OPTIONS,
      { ...DEFAULT_OPTIONS, preset: 'none', removeBackground: true },
      { ...DEFAULT_OPTIONS, removeBackground: true, background: 'colour', bgColor: '#112233' },
      { ...DEFAULT_OPTIONS, removeBackground: true, background: 'shadow', bgColor: '#112233', bgShadow: 'floating' },
      { ...DEFAULT_OPTIONS, preset: 'School and Sports', aiArt: 'watercolor', aiArtOutputSize: '4k' },
    ];
    for (const o of combos) {
      const check = validatePfcParams(toPfcParams(o, { long: 2048 }) as Record<string, unknown>);
      expect(check.errors, JSON.stringify(o)).toEqual([]);
      expect(check.warnings, JSON.stringify(o)).toEqual([]);
    }
    expect(toPfcParams(combos[1]!, {})).toEqual({ preset: 'none', removeBackground: true, outputType: 'png' });
    expect(toPfcParams(combos[3]!, {})).toEqual({ preset: 'Universal', removeBackground: true, bgColor: '#112233', bgShadow: 'floating' });
    expect(describeOptions(combos[4]!)).toBe('Perfectly Clear: preset School and Sports, AI Art Watercolour');
  });

  it('opens the backend the settings name, and asks for what is missing', () => {
    const base = { containerURL: 'http://localhost:8080', bgrURL: '', emulatorURL: 'http://127.0.0.1:9/v2', apiKey: null, bgrLicenceKey: null };
    expect(() => openBackend({ ...base, backend: 'hosted' })).toThrow(/API key in Settings/);
    expect(openBackend({ ...base, backend: 'hosted', apiKey: 'k' }).kind).toBe('web');
    expect(openBackend({ ...base, backend: 'emulator' }).kind).toBe('web');
    expect(openBackend({ ...base, backend: 'container' }).kind).toBe('container');
    expect(openBackend({ ...base, backend: 'container', bgrURL: 'http://localhost:8081' }).kind).toBe('container+bgr');
    expect(() => openBackend({ ...base, backend: 'container', containerURL: '' })).toThrow(/container URL/);
  });
});
