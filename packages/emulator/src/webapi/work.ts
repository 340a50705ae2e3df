/**
 * The work of one job: check the uploaded file by content against the job,
 * reuse a cached output when allowed, else run the pipeline and publish the
 * output at a public, expiring address.
 */
import { readFile, rm } from 'node:fs/promises';
import { emptyJobUsage } from '@pfc/core';
import type { WebApiApp } from './app';
import { describeSniffed } from './filetype';
import type { Job, Outcome } from './jobs';
import { JobRejection } from './limits';
import { processImage } from './process';
import type { ResultFile } from './results';

const GB = 1e9;
const bytes = (n: number): string => (n >= GB ? `${+(n / GB).toFixed(2)} GB` : `${n} bytes`);

export function resultUrl(app: WebApiApp, r: ResultFile): string {
  return `${app.storage}/results/${r.outputId}.${r.extension}`;
}

export function createJobWork(app: WebApiApp): (job: Job, signal: AbortSignal) => Promise<Outcome> {
  return async (job, signal) => {
    try {
      return await run(app, job, signal);
    } catch (err) {
      if (err instanceof JobRejection) return { status: 'REJECTED', statusText: err.statusText, code: err.code };
      throw err;
    }
  };
}

async function run(app: WebApiApp, job: Job, signal: AbortSignal): Promise<Outcome> {
  const { spec } = job;
  const { file, params } = spec;
  const wanted = params.fileType ?? 'image';
  const s = file.sniffed;
  if (s.kind === 'unknown') throw new JobRejection('the uploaded file is not an image or video this service reads (JPEG, PNG, MP4, MOV)', 415);
  if (s.kind !== wanted) throw new JobRejection(`fileType=${wanted} but the uploaded file is a ${describeSniffed(s)}`, 400);
  if (!s.supported) {
    throw new JobRejection(`${describeSniffed(s)} files are not supported; send ${s.kind === 'image' ? 'JPEG or PNG' : 'MP4 or MOV'}`, 415);
  }
  if (s.kind === 'video') {
    if (file.size > app.limits.maxVideoBytes) {
      throw new JobRejection(`the video has ${bytes(file.size)}; videos must be at most ${bytes(app.limits.maxVideoBytes)}`, 413);
    }
    // Never a fake COMPLETED: without an engine that corrects video, say plainly that this part is missing.
    if (!app.engine?.video) throw new JobRejection('video correction is not available in the emulator (MP4/MOV upload accepted, but not processed)', 501);
  }

  if (spec.useCache) {
    const hit = app.cache.get(spec.cacheKey);
    if (hit && app.results.live(hit.result.outputId)) {
      const copy = await app.results.duplicate(hit.result);
      app.stats.cacheHits++;
      return { ...hit.outcome, status: 'COMPLETED', correctedFile: resultUrl(app, copy) };
    }
  }

  if (s.kind === 'video') return runVideo(app, job, s.format, signal);

  const input = await readFile(file.path).catch(() => {
    throw new Error('the uploaded file is no longer available (past its retention)');
  });
  const [presetFile, background, artReference] = await Promise.all([
    spec.presetPath ? readFile(spec.presetPath) : undefined,
    spec.backgroundPath ? readFile(spec.backgroundPath) : undefined,
    spec.referencePath ? readFile(spec.referencePath) : undefined,
  ]);
  app.stats.pipelineRuns++;
  const r = await processImage(input, params, { limits: app.limits, engine: app.engine, presetFile, background, artReference });
  const stored = await app.results.add(r.output, r.extension, r.contentType);
  const outcome: Extract<Outcome, { status: 'COMPLETED' }> = {
    status: 'COMPLETED',
    correctedFile: resultUrl(app, stored),
    usage: r.usage,
    aiserver: r.aiserver,
    originalDimensions: r.originalDimensions,
    // Present when cropping or resizing changed the size, and always with autocrop (the documented crop case).
    ...(r.autoCrop || !sameSize(r.originalDimensions, r.outputDimensions) ? { outputDimensions: r.outputDimensions } : {}),
    ...(r.autoCrop ? { autoCrop: r.autoCrop } : {}),
    ...(r.detectionData ? { detectionData: r.detectionData } : {}),
    ...(r.notes ? { statusText: r.notes.join('; ') } : {}),
  };
  const { correctedFile: _c, ...cached } = outcome;
  app.cache.set(spec.cacheKey, { result: stored, outcome: cached });
  return outcome;
}

/**
 * A video job: the engine's `video` hook streams the corrected file into the
 * store's tmp folder, which is then published by rename (same container as
 * the input). `videoCorrectionCount` is 1 when colour was corrected (0 for
 * `preset=none`, whose streams are copied unchanged).
 */
async function runVideo(app: WebApiApp, job: Job, format: 'mp4' | 'mov', signal: AbortSignal): Promise<Outcome> {
  const { spec } = job;
  const presetFile = spec.presetPath ? await readFile(spec.presetPath) : undefined;
  const tmp = `${app.store.tmpPath()}.${format}`;
  app.stats.pipelineRuns++;
  try {
    const v = await app.engine!.video!(spec.file.path, tmp, { params: spec.params, presetFile, signal });
    const stored = await app.results.adopt(tmp, format, format === 'mov' ? 'video/quicktime' : 'video/mp4');
    const outcome: Extract<Outcome, { status: 'COMPLETED' }> = {
      status: 'COMPLETED',
      correctedFile: resultUrl(app, stored),
      usage: { ...emptyJobUsage(spec.usageSize), videoCorrectionCount: v.corrected ? 1 : 0 },
      aiserver: false,
      originalDimensions: { width: v.width, height: v.height },
    };
    const { correctedFile: _c, ...cached } = outcome;
    app.cache.set(spec.cacheKey, { result: stored, outcome: cached });
    return outcome;
  } finally {
    await rm(tmp, { force: true });
  }
}

const sameSize = (a: { width: number; height: number }, b: { width: number; height: number }): boolean => a.width === b.width && a.height === b.height;
