/**
 * The image pipeline of a job: decode, EXIF auto-orient, auto crop, resize
 * (documented priority and aspect rules), look, background, output type and
 * quality, metadata kept or stripped. One entry point, `processImage`, whose
 * named steps follow, so the look-producing steps can be swapped for the
 * imaging engine's. The raw-pixel helpers are in `raw-pixels.ts`.
 */
import { backgroundMode, colourToHex, effectivePfcParams, regeneratesThumbnail, usageSizeOf, type CropBox, type DetectionData, type Dimensions, type JobUsage, type PfcParams } from '@pfc/core';
import { autoCropBox, decodedToSrgb, encodeRaster } from '@pfc/engine';
import sharp, { type Metadata, type Sharp } from 'sharp';
import type { Detection, ImagingEngine, RawImage } from '../engine';
import type { EmulatorLimits } from '../options';
import { capLongSide, resizeTarget } from './geometry';
import { beautifies, checkBackgroundInput, checkInputImage, checkOutput, checkUpscale, JobRejection, type LimitsOf } from './limits';
import { flatten, overBackground, toRaw, withMask } from './raw-pixels';
import { withDecoderReason } from '../decoder-reason';

export interface ProcessContext {
  limits: EmulatorLimits;
  engine?: ImagingEngine;
  /** Bytes of the background image (`bgFileKey` mode). */
  background?: Buffer;
  /** Bytes of the custom preset file, when `preset` names one. */
  presetFile?: Buffer;
  /** Bytes of the style-reference image (`aiArtReferenceFileKey`). */
  artReference?: Buffer;
  /** Whose documented limits the input is held to (default the Web API's). */
  api?: LimitsOf;
}

export interface ProcessResult {
  output: Buffer;
  contentType: 'image/jpeg' | 'image/png';
  extension: 'jpg' | 'png';
  /** Auto-oriented input size. */
  originalDimensions: Dimensions;
  outputDimensions: Dimensions;
  autoCrop?: CropBox;
  detectionData?: DetectionData;
  usage: JobUsage;
  aiserver: boolean;
  /** The engine's remarks for the job's statusText (e.g. an unreadable preset file). */
  notes?: string[];
}


const AI_PRESET_GROUPS = new Set([undefined, 'Universal', 'Pro', 'School and Sports', 'Attractions and Cruise Lines']);

/** Effective parameters of a job (the contract's `effectivePfcParams`: defaults, priority rules, PNG for background removal). */
export function jobParams(validated: PfcParams): PfcParams {
  return effectivePfcParams(validated);
}

/** Runs the pipeline on one image. Throws `JobRejection` for inputs outside the limits; other errors mean FAILED, with the decoder's reason. */
export async function processImage(input: Buffer, params: PfcParams, ctx: ProcessContext): Promise<ProcessResult> {
  try {
    return await runPipeline(input, params, ctx);
  } catch (err) {
    throw await withDecoderReason(err, input);
  }
}

async function runPipeline(input: Buffer, params: PfcParams, ctx: ProcessContext): Promise<ProcessResult> {
  const { limits, engine } = ctx;
  const bgMode = backgroundMode(params);
  rejectUnavailableFeatures(params, bgMode, engine);
  const { inputFormat, original, hasAlpha, colour } = await readInput(input, bgMode, limits, ctx.api);
  const detection = await detectIfWanted(input, colour, params, ctx);
  const plan = planGeometry(input.length, original, params, bgMode, detection, limits);
  const job: Job = {
    input,
    original,
    params,
    ctx,
    plan,
    bgMode,
    detection,
    hasAlpha,
    colour,
    format: params.outputType === 'jpg' ? 'jpeg' : params.outputType === 'png' ? 'png' : inputFormat,
    bgHex: bgMode === 'colour' && params.bgColor ? colourToHex(params.bgColor) : undefined,
    art: params.aiArt !== undefined ? engine?.art?.bind(engine) : undefined,
    // Enlarging with an engine `upscale` hook: the pixels come from the model, not from Lanczos.
    aiUpscale: plan.target !== undefined && plan.enlarges && engine?.upscale !== undefined,
  };
  const notes: string[] = [];
  const rendered = needsRawPixels(job) ? await renderRawPixels(job, notes) : renderWithSharp(job);
  const { data, size } = await encode(rendered, job);
  return {
    output: data,
    contentType: job.format === 'jpeg' ? 'image/jpeg' : 'image/png',
    extension: job.format === 'jpeg' ? 'jpg' : 'png',
    originalDimensions: original,
    outputDimensions: size,
    ...(plan.crop ? { autoCrop: plan.crop } : {}),
    ...(params.includeDetectionData ? { detectionData: detectionData(detection, engine) } : {}),
    ...(notes.length > 0 ? { notes } : {}),
    usage: usageOf(job, original),
    aiserver: usesAiServer(job),
  };
}

/** One job's inputs and the decisions the rendering steps share. */
interface Job {
  input: Buffer;
  /** The input's auto-oriented size. */
  original: Dimensions;
  params: PfcParams;
  ctx: ProcessContext;
  plan: GeometryPlan;
  bgMode: BackgroundMode | undefined;
  detection: Detection | undefined;
  hasAlpha: boolean;
  /** The source's colour space and profile, for reading its pixels as sRGB (`sourceRaw`). */
  colour: SourceColour;
  format: 'jpeg' | 'png';
  /** Background colour of `bgColor` mode. */
  bgHex: string | undefined;
  art: ImagingEngine['art'];
  aiUpscale: boolean;
}

type BackgroundMode = NonNullable<ReturnType<typeof backgroundMode>>;

/** The crop applied (undefined for none or `autocropDetectOnly`) and the resize target (the output size checked against the limits). */
interface GeometryPlan {
  /** The auto-crop box found, applied or not. */
  crop: CropBox | undefined;
  applied: CropBox | undefined;
  target: Dimensions | undefined;
  enlarges: boolean;
}

/** 501 for features this emulator can only render with an engine hook that is missing. */
function rejectUnavailableFeatures(params: PfcParams, bgMode: BackgroundMode | undefined, engine: ImagingEngine | undefined): void {
  if (params.aiArt !== undefined && !engine?.art) throw new JobRejection('AI Art (aiArt) is not available in the emulator without an imaging engine that renders it', 501);
  if (bgMode === 'generative' && !(engine?.background && engine.segment)) {
    throw new JobRejection('generative backgrounds (bgGenerativePrompt) are not available in the emulator', 501);
  }
}

/** The input's format and auto-oriented size, rejected (415, or the limits' status) when the service would not take it. */
type SourceColour = Pick<Metadata, 'space' | 'icc'>;

async function readInput(input: Buffer, bgMode: BackgroundMode | undefined, limits: EmulatorLimits, api: LimitsOf = 'web'): Promise<{ inputFormat: 'jpeg' | 'png'; original: Dimensions; hasAlpha: boolean; colour: SourceColour }> {
  let meta: Metadata;
  try {
    meta = await sharp(input, { limitInputPixels: false }).metadata();
  } catch (err) {
    throw new Error(`the image could not be read: ${(err as Error).message}`);
  }
  if (meta.format !== 'jpeg' && meta.format !== 'png') throw new JobRejection(`${String(meta.format).toUpperCase()} images are not supported; send JPEG or PNG`, 415);
  if (meta.space === 'cmyk') throw new JobRejection('CMYK images are not supported; send RGB or RGBA JPEG or PNG', 415);
  // The Web API's Limits name RGB or RGBA only; the container's document names only JPEG and PNG, so it takes greyscale.
  if (api === 'web' && isGrey(meta)) throw new JobRejection('greyscale images are not supported; send RGB or RGBA JPEG or PNG', 415);
  const original: Dimensions = meta.autoOrient ?? { width: meta.width, height: meta.height };
  checkInputImage(original, limits, api);
  if (bgMode) checkBackgroundInput(input.length, limits);
  return { inputFormat: meta.format, original, hasAlpha: meta.hasAlpha === true, colour: { space: meta.space, icc: meta.icc } };
}

/** One grey channel, with or without alpha (a palette PNG decodes to RGB: colour, whatever its entries). */
function isGrey(meta: Metadata): boolean {
  return meta.channels <= 2;
}

/** A pipeline over the source read as 8-bit sRGB raw pixels, whatever its depth and profile (see @pfc/engine `decodedToSrgb`). */
function sourceRaw(pipeline: Sharp, colour: SourceColour): Promise<RawImage> {
  return toRaw(decodedToSrgb(pipeline, colour));
}

/** Faces, scene and glare from the engine, for the parameters that use them. */
async function detectIfWanted(input: Buffer, colour: SourceColour, params: PfcParams, { engine, limits }: ProcessContext): Promise<Detection | undefined> {
  const wantsDetection = params.autocrop === true || params.includeDetectionData === true || params.removeGlares === true;
  return wantsDetection && engine?.detect ? await engine.detect(await sourceRaw(decode(input, limits).removeAlpha(), colour)) : undefined;
}

/** Crop, then resize (upscale and output limits checked; background removal caps the long side). */
function planGeometry(inputBytes: number, original: Dimensions, params: PfcParams, bgMode: BackgroundMode | undefined, detection: Detection | undefined, limits: EmulatorLimits): GeometryPlan {
  const crop = params.autocrop ? autoCropBox(original, params, detection?.faces) : undefined;
  const applied = crop !== undefined && params.autocropDetectOnly !== true ? crop : undefined;
  const cropped: Dimensions = applied ? { width: applied.width, height: applied.height } : original;
  let target = resizeTarget(cropped, params);
  const enlarges = target !== undefined && (target.width > cropped.width || target.height > cropped.height);
  if (target && enlarges) checkUpscale(cropped, target, inputBytes, params, limits);
  if (bgMode) {
    const capped = capLongSide(target ?? cropped, limits.maxBackgroundOutputSide);
    if (capped !== (target ?? cropped)) target = capped;
  }
  checkOutput(target ?? cropped, limits);
  return { crop, applied, target, enlarges };
}

/** The decoded input with the planned crop and (unless `resize` is false) resize; it carries the input's metadata. */
function geometry({ input, ctx, plan }: Job, resize = true): Sharp {
  let s = decode(input, ctx.limits);
  if (plan.applied) s = s.extract({ left: plan.applied.x, top: plan.applied.y, width: plan.applied.width, height: plan.applied.height });
  if (plan.target && resize) s = s.resize(plan.target.width, plan.target.height, { fit: 'fill', kernel: 'lanczos3' });
  return s;
}

/** Whether colour correction runs: every preset but `none`. */
const colourCorrects = (params: PfcParams): boolean => params.preset !== 'none';

/** The look also does retouching, which preset=none does not skip ("other tools"). */
const looks = (params: PfcParams): boolean => colourCorrects(params) || params.removeBlemish === true || params.removeGlares === true;

/** Engine hooks work on raw pixels; so does laying a transparent PNG over a background image. */
function needsRawPixels({ art, aiUpscale, params, ctx: { engine }, bgMode, hasAlpha }: Job): boolean {
  return (
    art !== undefined ||
    aiUpscale ||
    (looks(params) && engine?.look !== undefined) || (bgMode !== undefined && engine?.segment !== undefined) || (bgMode === 'image' && hasAlpha)
  );
}

/** Geometry, upscale, look, AI Art and background on raw pixels (8-bit sRGB); the engine's remarks go to `notes`. */
async function renderRawPixels(job: Job, notes: string[]): Promise<RawImage> {
  const { params, ctx, plan, detection, art } = job;
  const engine = ctx.engine;
  let img = await sourceRaw(geometry(job, !job.aiUpscale), job.colour);
  if (job.aiUpscale && plan.target) img = await engine!.upscale!(img, plan.target, { params });
  if (looks(params) && engine?.look) {
    const beautify = beautifies(job.original, ctx.limits, ctx.api);
    const looked = await engine.look(img, { params, presetFile: ctx.presetFile, detection, ...(beautify ? {} : { beautify }) });
    if (!beautify) notes.push(`beautify corrections are disabled above an aspect ratio of ${ctx.limits.maxAspectRatio}:1`);
    notes.push(...(looked.notes ?? []));
    img = looked;
  }
  if (art) {
    // After the look, before the background: AI Art re-renders the corrected photo, at its own output size.
    img = await art(img, { params, reference: ctx.artReference, segment: engine?.segment?.bind(engine) });
    checkOutput(img, ctx.limits);
  }
  return withBackground(job, img);
}

/** The background step on raw pixels; a JPEG output has no alpha, so it ends flattened. */
async function withBackground({ bgMode, format, bgHex, params, ctx }: Job, img: RawImage): Promise<RawImage> {
  const engine = ctx.engine;
  if (bgMode && engine?.segment && engine.background) {
    // The engine composes every mode itself (generated backdrops, bgShadow).
    const composed = await engine.background(img, await engine.segment(img), { params, background: ctx.background });
    return format === 'jpeg' && composed.channels === 4 ? flatten(composed, '#ffffff') : composed;
  }
  const masked = bgMode && engine?.segment ? await withMask(img, await engine.segment(img)) : img;
  if (bgMode === 'colour' || (format === 'jpeg' && masked.channels === 4)) return flatten(masked, bgHex ?? '#ffffff');
  if (bgMode === 'image' && ctx.background) return overBackground(masked, ctx.background);
  if (bgMode === 'transparent' && masked.channels === 3) return flatten(masked, undefined);
  return masked;
}

/** Geometry and alpha handling in one sharp pipeline, when no step needs raw pixels. */
function renderWithSharp(job: Job): Sharp {
  const { format, hasAlpha, bgMode, bgHex } = job;
  const out = geometry(job);
  if (format === 'jpeg' && (hasAlpha || bgMode !== undefined)) return out.flatten({ background: bgHex ?? '#ffffff' });
  if (bgMode === 'colour' && hasAlpha) return out.flatten({ background: bgHex ?? '#ffffff' });
  if (bgMode === 'transparent') return out.ensureAlpha();
  return out;
}

/** Metadata kept or stripped, the output type and quality; then the engine's thumbnail regeneration. */
async function encode(rendered: Sharp | RawImage, job: Job): Promise<{ data: Buffer; size: Dimensions }> {
  const { params, format, ctx: { engine } } = job;
  const { data: encoded, size } = isRaw(rendered) ? await encodeRaw(rendered, job) : await encodeSourcePixels(rendered, job);
  // Kept EXIF still carries the source's thumbnail: the engine regenerates it when asked.
  const data = engine?.thumbnail && regeneratesThumbnail(params, format) ? await engine.thumbnail(encoded) : encoded;
  return { data, size };
}

function isRaw(rendered: Sharp | RawImage): rendered is RawImage {
  return 'data' in rendered;
}

/**
 * Pixels still in the source's colour space (geometry only): with
 * preserveMetadata they keep its profile as they are; without it sharp
 * strips EXIF, ICC, XMP and IPTC and converts them to sRGB.
 */
async function encodeSourcePixels(rendered: Sharp, { params, format, colour }: Job): Promise<{ data: Buffer; size: Dimensions }> {
  const out = params.preserveMetadata !== false ? keepGreyProfile(rendered.keepMetadata(), colour) : rendered;
  const { data, info } = await (format === 'jpeg' ? out.jpeg({ quality: params.outputQuality ?? 90 }) : out.png()).toBuffer({ resolveWithObject: true });
  return { data, size: { width: info.width, height: info.height } };
}

/**
 * A grey source with its own profile (Gray Gamma 2.2, Dot Gain 20 %) stays
 * grey: sharp writes grey pixels as RGB, where a grey profile does not fit
 * and is dropped while the numbers stay, so the tones would shift.
 */
function keepGreyProfile(pipeline: Sharp, colour: SourceColour): Sharp {
  return colour.space === 'b-w' && colour.icc ? pipeline.toColourspace('b-w') : pipeline;
}

/**
 * Pixels an engine step made: 8-bit sRGB whatever the source's profile was
 * (toRaw converted them), so kept metadata comes with an sRGB profile, as
 * the engine writes it (@pfc/engine `encodeRaster`); the source's own (a
 * phone's Display P3) would show them oversaturated.
 */
async function encodeRaw(img: RawImage, { params, format, input }: Job): Promise<{ data: Buffer; size: Dimensions }> {
  const size = { width: img.width, height: img.height };
  const quality = params.outputQuality ?? 90;
  if (params.preserveMetadata !== false && img.channels !== 1) {
    return { data: await encodeRaster({ ...img, channels: img.channels }, { format, quality, chromaSubsampling: '4:2:0', metadataFrom: input }), size };
  }
  const out = sharp(img.data, { raw: img });
  return { data: await (format === 'jpeg' ? out.jpeg({ quality }) : out.png()).toBuffer(), size };
}

/** The job's usage counters, as the service bills them. */
function usageOf({ params, plan, bgMode, detection }: Job, original: Dimensions): JobUsage {
  const { target, enlarges } = plan;
  return {
    size: usageSizeOf(original.width * original.height),
    imageCorrectionCount: colourCorrects(params) ? 1 : 0,
    imageResizeCount: target && enlarges ? 1 : 0,
    classicResizeCount: target && !enlarges ? 1 : 0,
    videoCorrectionCount: 0,
    removeBackgroundCount: bgMode ? 1 : 0,
    autoCropCount: params.autocrop ? 1 : 0,
    glaresDetectorCount: params.removeGlares ? 1 : 0,
    removeGlaresTotalCount: params.removeGlares ? 1 : 0,
    removeGlaresCount: params.removeGlares && detection?.glare ? 1 : 0,
  };
}

/** Whether the service would route the job to its AI server (`aiserver` of the job record). */
function usesAiServer({ params, plan, bgMode, art }: Job): boolean {
  return (
    (colourCorrects(params) && AI_PRESET_GROUPS.has(params.preset)) || plan.enlarges || bgMode !== undefined ||
    params.removeBlemish === true || params.removeGlares === true || params.autocrop === true || art !== undefined
  );
}

function decode(input: Buffer, limits: EmulatorLimits): Sharp {
  // failOn 'error': minor decoder warnings (common in real-world JPEGs) do not fail a job.
  return sharp(input, { limitInputPixels: limits.maxImagePixels, failOn: 'error' }).autoOrient();
}

function detectionData(d: Detection | undefined, engine: ImagingEngine | undefined): DetectionData {
  const available = engine?.detect !== undefined;
  return {
    facesCount: d?.faces.length ?? 0,
    faces: d?.faces ?? [],
    scene: d?.scene ?? 0,
    noise: d?.noise ?? (available ? '' : 'not measured'),
    redEye: d?.redEye ?? (available ? '' : 'not measured'),
    warnings: [],
    message: available ? '' : 'face and scene detection are not available in this emulator',
    status: available ? 'OK' : 'NOT_AVAILABLE',
  };
}
