/**
 * Per-step timing of a correction: a record the caller passes in and the
 * engine adds to, so a benchmark can tell where the time goes without any
 * logging. Costs one `performance.now()` pair per step.
 */

/**
 * Steps of {@link correctImage}, in order. `decode`: input bytes to pixels
 * (with the format probe); `analysisCopy`: the small copies the scene,
 * planner and face detector read; `faces`: face detection; `planning`:
 * scene, preset and the colour plan; `curves`: the per-channel tone curves
 * (look-up tables) and the vibrance/saturation pass, one WebAssembly pass
 * over the pixels (in bands, see `curvesStage`) that also writes the luma
 * plane the mask reads; `sharpen`: the unsharp mask on luma (libvips blur of
 * the luma plane, then one WebAssembly pass adding the detail to the
 * pixels); `resize`: output size; `encode`: pixels to JPEG/PNG bytes with
 * metadata. While faces are detected the look runs `planning` and `curves`
 * as if none will be found (`look.ts`), so `faces` is the wait beyond them.
 */
export type CorrectionStep = 'decode' | 'analysisCopy' | 'faces' | 'planning' | 'curves' | 'sharpen' | 'resize' | 'encode';

/** Milliseconds spent per step; steps that did not run are absent. Times add up over calls. */
export type StepTimings = Partial<Record<CorrectionStep, number>>;

/** Runs `work`, adding its wall time to `timings[step]` when a record is given. */
export async function timed<T>(timings: StepTimings | undefined, step: CorrectionStep, work: () => Promise<T> | T): Promise<T> {
  if (!timings) return work();
  const t0 = performance.now();
  try {
    return await work();
  } finally {
    timings[step] = (timings[step] ?? 0) + (performance.now() - t0);
  }
}

/** Synchronous variant of {@link timed} for pure in-memory steps. */
export function timedSync<T>(timings: StepTimings | undefined, step: CorrectionStep, work: () => T): T {
  if (!timings) return work();
  const t0 = performance.now();
  try {
    return work();
  } finally {
    timings[step] = (timings[step] ?? 0) + (performance.now() - t0);
  }
}
