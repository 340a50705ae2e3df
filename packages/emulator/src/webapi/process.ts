/**
 * The image pipeline of a job: decode, EXIF auto-orient, auto crop, resize
 * (documented priority and aspect rules), look, background, output type and
 * quality, metadata kept or stripped. One function, `processImage`, so the
 * look-producing steps can be swapped for the imaging engine's.
 */
import { backgroundMode, colourToHex, effectivePfcParams, regeneratesThumbnail, usageSizeOf, type CropBox, type DetectionData, type Dimensions, type JobUsage, type PfcParams } from '@pfc/core';
import { autoCropBox } from '@pfc/engine';
import sharp, { type Metadata, type Sharp } from 'sharp';
import type { Detection, ImagingEngine, RawImage } from '../engine';
import type { EmulatorLimits } from '../options';
import { capLongSide, resizeTarget } from './geometry';
import { checkBackgroundInput, checkInputImage, checkOutput, checkUpscale, JobRejection } from './limits';

export interface ProcessContext {
  limits: EmulatorLimits;
  engine?: ImagingEngine;
  /** Bytes of the background image (`bgFileKey` mode). */
  background?: Buffer;
  /** Bytes of the custom preset file, when `preset` names one. */
  presetFile?: Buffer;
  /** Bytes of the style-reference image (`aiArtReferenceFileKey`). */
  artReference?: Buffer;
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

/** Runs the pipeline on one image. Throws `JobRejection` for inputs outside the limits; other errors mean FAILED. */
export async function processImage(input: Buffer, params: PfcParams, ctx: ProcessContext): Promise<ProcessResult> {
  const { limits, engine } = ctx;
  if (params.aiArt !== undefined && !engine?.art) throw new JobRejection('AI Art (aiArt) is not available in the emulator without an imaging engine that renders it', 501);
  const art = params.aiArt !== undefined ? engine?.art?.bind(engine) : undefined;
  const bgMode = backgroundMode(params);
  if (bgMode === 'generative' && !(engine?.background && engine.segment)) {
    throw new JobRejection('generative backgrounds (bgGenerativePrompt) are not available in the emulator', 501);
  }

  let meta: Metadata;
  try {
    meta = await sharp(input, { limitInputPixels: false }).metadata();
  } catch (err) {
    throw new Error(`the image could not be read: ${(err as Error).message}`);
  }
  if (meta.format !== 'jpeg' && meta.format !== 'png') throw new JobRejection(`${String(meta.format).toUpperCase()} images are not supported; send JPEG or PNG`, 415);
  if (meta.space === 'cmyk') throw new JobRejection('CMYK images are not supported; send RGB or RGBA JPEG or PNG', 415);
  const original: Dimensions = meta.autoOrient ?? { width: meta.width, height: meta.height };
  checkInputImage(original, limits);
  if (bgMode) checkBackgroundInput(input.length, limits);

  const wantsDetection = params.autocrop === true || params.includeDetectionData === true || params.removeGlares === true;
  const detection = wantsDetection && engine?.detect ? await engine.detect(await toRaw(decode(input, limits).removeAlpha())) : undefined;

  const crop = params.autocrop ? autoCropBox(original, params, detection?.faces) : undefined;
  const applyCrop = crop !== undefined && params.autocropDetectOnly !== true;
  const cropped: Dimensions = applyCrop ? { width: crop.width, height: crop.height } : original;
  let target = resizeTarget(cropped, params);
  const enlarges = target !== undefined && (target.width > cropped.width || target.height > cropped.height);
  if (target && enlarges) checkUpscale(cropped, target, input.length, params, limits);
  if (bgMode) {
    const capped = capLongSide(target ?? cropped, limits.maxBackgroundOutputSide);
    if (capped !== (target ?? cropped)) target = capped;
  }
  const outSize = target ?? cropped;
  checkOutput(outSize, limits);

  // Enlarging with an engine `upscale` hook: the pixels come from the model, not from Lanczos.
  const aiUpscale = target !== undefined && enlarges && engine?.upscale !== undefined;
  const geometry = (resize = true): Sharp => {
    let s = decode(input, limits);
    if (applyCrop) s = s.extract({ left: crop.x, top: crop.y, width: crop.width, height: crop.height });
    if (target && resize) s = s.resize(target.width, target.height, { fit: 'fill', kernel: 'lanczos3' });
    return s;
  };

  const format: 'jpeg' | 'png' = params.outputType === 'jpg' ? 'jpeg' : params.outputType === 'png' ? 'png' : meta.format;
  const bgHex = bgMode === 'colour' && params.bgColor ? colourToHex(params.bgColor) : undefined;
  const colourCorrects = params.preset !== 'none';
  // The look also does retouching, which preset=none does not skip ("other tools").
  const looks = colourCorrects || params.removeBlemish === true || params.removeGlares === true;
  const hasAlpha = meta.hasAlpha === true;
  const needsRaw =
    art !== undefined ||
    aiUpscale ||
    (looks && engine?.look !== undefined) || (bgMode !== undefined && engine?.segment !== undefined) || (bgMode === 'image' && hasAlpha);

  const notes: string[] = [];
  let out: Sharp;
  if (needsRaw) {
    let img = await toRaw(geometry(!aiUpscale));
    if (aiUpscale && target) img = await engine!.upscale!(img, target, { params });
    if (looks && engine?.look) {
      const looked = await engine.look(img, { params, presetFile: ctx.presetFile, detection });
      notes.push(...(looked.notes ?? []));
      img = looked;
    }
    if (art) {
      // After the look, before the background: AI Art re-renders the corrected photo, at its own output size.
      img = await art(img, { params, reference: ctx.artReference, segment: engine?.segment?.bind(engine) });
      checkOutput(img, limits);
    }
    if (bgMode && engine?.segment && engine.background) {
      // The engine composes every mode itself (generated backdrops, bgShadow).
      img = await engine.background(img, await engine.segment(img), { params, background: ctx.background });
      if (format === 'jpeg' && img.channels === 4) img = await flatten(img, '#ffffff');
    } else {
      if (bgMode && engine?.segment) img = await withMask(img, await engine.segment(img));
      if (bgMode === 'colour' || (format === 'jpeg' && img.channels === 4)) img = await flatten(img, bgHex ?? '#ffffff');
      else if (bgMode === 'image' && ctx.background) img = await overBackground(img, ctx.background);
      else if (bgMode === 'transparent' && img.channels === 3) img = await flatten(img, undefined);
    }
    out = params.preserveMetadata === false ? sharp(img.data, { raw: img }) : replacePixels(geometry(), img, outSize);
  } else {
    out = geometry();
    if (format === 'jpeg' && (hasAlpha || bgMode !== undefined)) out = out.flatten({ background: bgHex ?? '#ffffff' });
    else if (bgMode === 'colour' && hasAlpha) out = out.flatten({ background: bgHex ?? '#ffffff' });
    else if (bgMode === 'transparent') out = out.ensureAlpha();
  }
  // Without keepMetadata sharp strips EXIF, ICC, XMP and IPTC and converts to sRGB: preserveMetadata=false.
  if (params.preserveMetadata !== false) out = out.keepMetadata();
  out = format === 'jpeg' ? out.jpeg({ quality: params.outputQuality ?? 90 }) : out.png();
  const { data: encoded, info } = await out.toBuffer({ resolveWithObject: true });
  // Kept EXIF still carries the source's thumbnail: the engine regenerates it when asked.
  const data = engine?.thumbnail && regeneratesThumbnail(params, format) ? await engine.thumbnail(encoded) : encoded;

  const usage: JobUsage = {
    size: usageSizeOf(original.width * original.height),
    imageCorrectionCount: colourCorrects ? 1 : 0,
    imageResizeCount: target && enlarges ? 1 : 0,
    classicResizeCount: target && !enlarges ? 1 : 0,
    videoCorrectionCount: 0,
    removeBackgroundCount: bgMode ? 1 : 0,
    autoCropCount: params.autocrop ? 1 : 0,
    glaresDetectorCount: params.removeGlares ? 1 : 0,
    removeGlaresTotalCount: params.removeGlares ? 1 : 0,
    removeGlaresCount: params.removeGlares && detection?.glare ? 1 : 0,
  };
  return {
    output: data,
    contentType: format === 'jpeg' ? 'image/jpeg' : 'image/png',
    extension: format === 'jpeg' ? 'jpg' : 'png',
    originalDimensions: original,
    outputDimensions: { width: info.width, height: info.height },
    ...(crop ? { autoCrop: crop } : {}),
    ...(params.includeDetectionData ? { detectionData: detectionData(detection, engine) } : {}),
    ...(notes.length > 0 ? { notes } : {}),
    usage,
    aiserver:
      (colourCorrects && AI_PRESET_GROUPS.has(params.preset)) || enlarges || bgMode !== undefined ||
      params.removeBlemish === true || params.removeGlares === true || params.autocrop === true || art !== undefined,
  };
}

function decode(input: Buffer, limits: EmulatorLimits): Sharp {
  // failOn 'error': minor decoder warnings (common in real-world JPEGs) do not fail a job.
  return sharp(input, { limitInputPixels: limits.maxImagePixels, failOn: 'error' }).autoOrient();
}

async function toRaw(s: Sharp): Promise<RawImage> {
  const { data, info } = await s.toColourspace('srgb').raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels as 1 | 3 | 4 };
}

/** Puts new pixels into the geometry pipeline so the input's metadata is kept (`blend: source` replaces pixels and alpha). */
function replacePixels(base: Sharp, img: RawImage, size: Dimensions): Sharp {
  let shaped = img.channels === 4 ? base.ensureAlpha() : base.removeAlpha();
  // AI Art may change the size: the last resize of a pipeline wins, so the metadata-carrying base takes the new one.
  if (img.width !== size.width || img.height !== size.height) shaped = shaped.resize(img.width, img.height, { fit: 'fill' });
  return shaped.composite([{ input: img.data, raw: { width: img.width, height: img.height, channels: img.channels }, blend: 'source' }]);
}

async function withMask(img: RawImage, mask: RawImage): Promise<RawImage> {
  const rgb = img.channels === 4 ? await toRaw(sharp(img.data, { raw: img }).removeAlpha()) : img;
  let m = mask;
  if (m.width !== img.width || m.height !== img.height || m.channels !== 1) {
    const data = await sharp(mask.data, { raw: mask }).resize(img.width, img.height, { fit: 'fill' }).extractChannel(0).raw().toBuffer();
    m = { data, width: img.width, height: img.height, channels: 1 };
  }
  return toRaw(sharp(rgb.data, { raw: rgb }).joinChannel(m.data, { raw: { width: m.width, height: m.height, channels: 1 } }));
}

/** Flattens onto a colour, or (colour undefined) adds an opaque alpha channel. */
async function flatten(img: RawImage, hex: string | undefined): Promise<RawImage> {
  const s = sharp(img.data, { raw: img });
  return toRaw(hex === undefined ? s.ensureAlpha() : s.flatten({ background: hex }));
}

async function overBackground(img: RawImage, background: Buffer): Promise<RawImage> {
  const bg = await toRaw(sharp(background, { failOn: 'error' }).autoOrient().resize(img.width, img.height, { fit: 'cover' }).removeAlpha());
  const over = await toRaw(sharp(bg.data, { raw: bg }).composite([{ input: img.data, raw: img }]));
  // composite keeps the overlay's alpha channel; the result is opaque, so drop it (a second pipeline: removeAlpha runs last).
  return over.channels === 4 ? toRaw(sharp(over.data, { raw: over }).removeAlpha()) : over;
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
