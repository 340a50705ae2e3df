/**
 * The correction look of one image: scene, preset resolution, skip rule and
 * colour correction. Shared by {@link correctImage} and the emulator's `look`
 * hook ({@link createLookEngine}), so both give the same pixels.
 */
import type { FaceRecord, PfcParams } from '@pfc/core';
import { ANALYSIS_SIDE, curvesStage, sharpenStage, type CurvesStage } from './colour/correct';
import { finishAmount, type FinishAmounts } from './colour/finish';
import { estimateIlluminant } from './colour/illuminant';
import { withSkin, type FaceBox } from './colour/skin';
import { NEUTRAL_COLOUR_PARAMS, type ColourParams } from './colour/params';
import { pointSample, thumbnailRaster, type Raster } from './image/raster';
import { resolvePreset, type ResolvedPreset } from './presets/resolve';
import { SCENE, type SceneId } from './scene/categories';
import { detectScene, type SceneFace } from './scene/detect';
import { skipReason } from './scene/skip';
import { removeBlemishes } from './retouch/blemish';
import { removeGlare } from './retouch/glare';
import { timed, timedSync, type StepTimings } from './timings';

/**
 * Finds faces on an image (pixel boxes and eyes in that image). With
 * `boxesOnly` the caller reads only the faces' count and boxes (the scene),
 * so a detector may skip its eye and expression models (`detectFaces`).
 */
export type FaceFinder = (image: Raster, options?: { boxesOnly?: boolean }) => Promise<readonly FaceRecord[]>;

/** Inputs of {@link applyLook} beyond the image and parameters. */
export interface LookOptions {
  /** File of the custom preset named by `params.preset`. */
  presetFile?: Uint8Array;
  /** Scene already detected on the full image (skips detection here). */
  scene?: number;
  /**
   * Faces already found, as fractions of the image size: used for the scene when `scene` is not
   * given, and, with their positions (`left`, `top`), their skin bounds the white balance.
   */
  faces?: readonly (SceneFace & { left?: number; top?: number })[];
  /** Face detector: for retouching, for the white balance (faces' skin, colour/skin.ts) and for the scene when neither `scene` nor `faces` is given. */
  findFaces?: FaceFinder;
  /** Skip mode when `params.skip` is not given (the container's PFC_SKIP_MODE). Default `clipart`. */
  defaultSkip?: 'clipart' | 'legacy' | 'none';
  /** A record each step's wall time is added to (see `CorrectOptions.timings`). */
  timings?: StepTimings;
}

/** What {@link applyLook} did. */
export interface LookResult {
  raster: Raster;
  scene: SceneId;
  preset: string;
  aiSelection: boolean;
  colour: ColourParams;
  /** The sharpening and vibrance amounts applied: `colour`'s scaled by the photo's need (colour/finish.ts); absent without correction. */
  finish?: FinishAmounts;
  /** Why colour correction was skipped (skip mode), if it was. */
  skipped?: string;
  /** Remarks for the job's statusText (unreadable preset file, skip); empty when none. */
  notes: string[];
  /** With `removeGlares`: whether glare was found (and reduced). */
  glareFound?: boolean;
  /** With `removeBlemish`: faces retouched (0 = none found, image unchanged by it). */
  blemishFaces?: number;
}

/**
 * Retouch (blemishes, glasses glare: `removeBlemish`, `removeGlares`), detect
 * the scene (when needed), resolve the preset and correct the colours.
 * Retouching needs `findFaces`; without it no face is found and retouching
 * changes nothing.
 */
export async function applyLook(image: Raster, params: PfcParams, options: LookOptions = {}): Promise<LookResult> {
  const retouch = params.removeBlemish === true || params.removeGlares === true;
  // Faces for retouching, for the white balance (their skin, colour/skin.ts) and for the scene
  // (reported also with preset=none, so it is the same either way).
  const needFaces = retouch || params.preset !== 'none' || (options.scene === undefined && !options.faces);
  const { findFaces, timings } = options;
  // Face detection runs in a worker thread. Unless retouching needs the
  // faces first, the analysis copy and the measurements that do not depend
  // on the scene are made meanwhile; `faces` times only the wait beyond them.
  // Retouching needs the eyes; the scene only the faces' sizes.
  const facesTask = needFaces && findFaces ? findFaces(image, { boxesOnly: !retouch }) : undefined;
  // Awaited below; until then a failure must not count as an unhandled rejection.
  facesTask?.catch(() => undefined);
  const awaitFaces = () => (facesTask ? timed(timings, 'faces', () => facesTask) : Promise.resolve(undefined));
  let found = retouch ? await awaitFaces() : undefined;
  let work = image;
  let glareFound: boolean | undefined;
  let blemishFaces: number | undefined;
  if (params.removeGlares === true) {
    const g = removeGlare(work, found ?? []);
    work = g.raster;
    glareFound = g.found;
  }
  if (params.removeBlemish === true) {
    const b = removeBlemishes(work, found ?? []);
    work = b.raster;
    blemishFaces = b.faces;
  }

  // One analysis copy for the scene, the skip rule and the colour plan.
  const thumb = await timed(timings, 'analysisCopy', () => thumbnailRaster(work, ANALYSIS_SIDE));
  // A face detector whose copy is ready hands it to its worker now, before the main thread is busy.
  if (facesTask && !retouch) await new Promise((resolve) => setImmediate(resolve));
  const evidence = params.preset === 'none' ? undefined : timedSync(timings, 'planning', () => estimateIlluminant(thumb));
  const choose = (faces: readonly FaceRecord[] | undefined) =>
    timedSync(timings, 'planning', () => {
      let scene: SceneId;
      if (options.scene !== undefined && isSceneId(options.scene)) scene = options.scene;
      else {
        const sizes = options.faces ?? faces?.map((f) => ({ width: f.width / image.width, height: f.height / image.height })) ?? [];
        scene = detectScene(thumb, sizes).scene;
      }
      const preset = resolvePreset(params.preset, scene, options.presetFile);
      const skipped = preset.aiSelection || params.preset === 'none' ? undefined : skipReason(params.skip ?? options.defaultSkip ?? 'clipart', thumb);
      const colour: ColourParams = skipped ? { ...NEUTRAL_COLOUR_PARAMS } : preset.params;
      return { scene, preset, skipped, colour };
    });
  // The levels' ends come from a point sample of the image, shared by the guessed and the final stage.
  const points = evidence ? timedSync(timings, 'analysisCopy', () => pointSample(work, ANALYSIS_SIDE)) : undefined;
  const stageOptions = { thumb, ...(points ? { points } : {}), ...(evidence ? { evidence } : {}), ...(timings ? { timings } : {}) };
  // While the detector works, correct as if it finds no face: most photos have none, and a
  // portrait's look differs from the general one only in its sharpening amount, which comes
  // after this stage, and in a white balance its faces' skin bounds. When the faces change
  // more than the sharpening, the stage is redone.
  let guess: { choice: ReturnType<typeof choose>; stage: Promise<CurvesStage | undefined> } | undefined;
  if (facesTask && !retouch) {
    const choice = choose(undefined);
    guess = { choice, stage: curvesStage(work, choice.colour, { ...stageOptions, asGiven: choice.preset.asGiven }, true) };
    // Finished before the wait for faces, so `faces` times only the wait beyond it (a failure is
    // raised below if the stage is used).
    await guess.stage.catch(() => undefined);
  }
  if (!retouch) found = await awaitFaces();
  // Without faces the choice is the guess's.
  const { scene, preset, skipped, colour } = guess && found?.length === 0 ? guess.choice : choose(found);
  const notes = preset.note ? [preset.note] : [];
  if (skipped) notes.push(`colour correction skipped: ${skipped}`);
  const boxes = found ?? facesPlaced(options.faces, work);
  const skinned = evidence && boxes.length ? timedSync(timings, 'planning', () => withSkin(evidence, work, boxes)) : evidence;
  const sameBalance = skinned?.consensus.u === evidence?.consensus.u && skinned?.consensus.v === evidence?.consensus.v;
  const stage = await (guess && sameBalance && sameExceptSharpen(guess.choice, { colour, preset })
    ? guess.stage
    : curvesStage(work, colour, { ...stageOptions, ...(skinned ? { evidence: skinned } : {}), asGiven: preset.asGiven }));
  // A reused stage's plan sharpens by the guess's amount; this look's is its own parameter times the same measured need.
  const sharpen = stage ? finishAmount('sharpen', colour, stage.diagnostics.need, preset.asGiven) : 0;
  const raster = stage ? await sharpenStage(stage, sharpen, timings) : work;
  return {
    raster,
    scene,
    preset: preset.name,
    aiSelection: preset.aiSelection,
    colour,
    ...(stage ? { finish: { sharpen, vibrance: stage.plan.vibrance } } : {}),
    ...(skipped ? { skipped } : {}),
    notes,
    ...(glareFound !== undefined ? { glareFound } : {}),
    ...(blemishFaces !== undefined ? { blemishFaces } : {}),
  };
}

/**
 * Whether two choices give the same curves stage: parameters equal in
 * everything but the sharpening amount, and vibrance as given in both or in neither.
 */
function sameExceptSharpen(a: { colour: ColourParams; preset: ResolvedPreset }, b: { colour: ColourParams; preset: ResolvedPreset }): boolean {
  const [p, q] = [a.colour, b.colour];
  const sameParams = (Object.keys(p) as (keyof ColourParams)[]).every((k) => k === 'sharpen' || p[k] === q[k]) && Object.keys(p).length === Object.keys(q).length;
  return sameParams && a.preset.asGiven.includes('vibrance') === b.preset.asGiven.includes('vibrance');
}

function isSceneId(n: number): n is SceneId {
  return (Object.values(SCENE) as number[]).includes(n);
}

/** 8-bit interleaved pixels as the emulator's hooks pass them. */
export interface LookImage {
  data: Uint8Array;
  width: number;
  height: number;
  channels: 1 | 3 | 4;
}

/** Context of the emulator's `look` hook. */
export interface LookHookContext {
  params: PfcParams;
  presetFile?: Uint8Array;
  detection?: { faces: readonly Pick<FaceRecord, 'width' | 'height'>[]; scene?: number };
  /** False: no beautify corrections, so nothing is found or changed on faces (the colour container's rule above 21:1). */
  beautify?: boolean;
}

/** The faces given with their positions, in the image's pixels (faces given by size alone have none). */
function facesPlaced(faces: LookOptions['faces'], image: { width: number; height: number }): FaceBox[] {
  const placed = (faces ?? []).filter((f): f is SceneFace & { left: number; top: number } => f.left !== undefined && f.top !== undefined);
  return placed.map((f) => ({ left: f.left * image.width, top: f.top * image.height, width: f.width * image.width, height: f.height * image.height }));
}

/** Face sizes as fractions of an image (approximate when the image was cropped or resized since). */
function relativeFaces(faces: readonly Pick<FaceRecord, 'width' | 'height'>[], image: { width: number; height: number }): SceneFace[] {
  return faces.map((f) => ({ width: Math.min(1, f.width / image.width), height: Math.min(1, f.height / image.height) }));
}

/**
 * The emulator's `look` hook: `{ look }` for its `ImagingEngine`. Returns the
 * corrected pixels (same size and channels) with the look's `notes` and
 * `scene` attached. With `findFaces`, AI preset selection tells portraits by
 * their faces when the job did not run face detection.
 */
export function createLookEngine(options: { findFaces?: FaceFinder; defaultSkip?: 'clipart' | 'legacy' | 'none' } = {}) {
  return {
    async look(image: LookImage, ctx: LookHookContext): Promise<LookImage & { data: Buffer; notes: string[]; scene: number }> {
      if (image.channels === 1) throw new Error('look: expected an RGB or RGBA image, got one channel');
      const raster: Raster = { data: image.data, width: image.width, height: image.height, channels: image.channels };
      const beautify = ctx.beautify !== false;
      const params = beautify ? ctx.params : { ...ctx.params, removeBlemish: false, removeGlares: false };
      const r = await applyLook(raster, params, {
        ...(ctx.presetFile ? { presetFile: ctx.presetFile } : {}),
        ...(ctx.detection?.scene !== undefined ? { scene: ctx.detection.scene } : {}),
        // The job's faces are in the full image's pixels; this image may be cropped or resized, so the
        // look finds its own faces (for retouching, and for the scene when the job brought none).
        ...(options.findFaces && beautify ? { findFaces: options.findFaces } : {}),
        ...(!beautify ? { faces: [] } : ctx.detection && ctx.detection.scene === undefined && !options.findFaces ? { faces: relativeFaces(ctx.detection.faces, image) } : {}),
        ...(options.defaultSkip ? { defaultSkip: options.defaultSkip } : {}),
      });
      const out = r.raster;
      return { data: Buffer.from(out.data.buffer, out.data.byteOffset, out.data.length), width: out.width, height: out.height, channels: out.channels, notes: r.notes, scene: r.scene };
    },
  };
}
