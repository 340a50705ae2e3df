/**
 * The job pipeline: one image and one `/pfc` parameter set in, the encoded
 * output and the job record's fields out. No I/O beyond the buffers given.
 */
import { effectivePfcParams, emptyJobUsage, regeneratesThumbnail, usageSizeOf, type PfcParams } from '@pfc/core';
import { encodeRaster, keptSubsampling, type OutputFormat } from './image/encode';
import { updateExifThumbnail } from './image/exif-thumbnail';
import { decodeRaster } from './image/raster';
import { resizeTo, targetDimensions } from './image/resize';
import { upscaleRaster } from './upscale/upscale';
import { checkCorrectionLimits, checkUpscaleLimits } from './limits';
import { applyLook } from './look';
import { detectFaces } from './vision';
import type { CorrectOptions, CorrectResult } from './types';
import { EngineError } from './errors';
import { timed } from './timings';
import sharp, { type Metadata } from 'sharp';

/**
 * Correct one image under a `/pfc` parameter set.
 *
 * @param input JPEG or PNG bytes (RGB or RGBA).
 * @param pfc the job's parameters; defaults are applied as the service does.
 * @throws EngineError when the input is not a supported image or breaks a documented limit.
 */
export async function correctImage(input: Buffer, pfc: PfcParams, options: CorrectOptions = {}): Promise<CorrectResult> {
  const p = effectivePfcParams(pfc);
  const { timings } = options;
  const source = await timed(timings, 'decode', () => probeFormat(input));
  // From the header, before the decode: an image over the limits costs no memory.
  const upright = source.metadata.autoOrient ?? source.metadata;
  checkCorrectionLimits(upright.width, upright.height);
  const image = await timed(timings, 'decode', () => decodeRaster(input));
  const originalDimensions = { width: image.width, height: image.height };
  const usage = emptyJobUsage(usageSizeOf(image.width * image.height));
  const notes: string[] = [];

  const look = await applyLook(image, p, {
    ...(options.presetFile ? { presetFile: options.presetFile } : {}),
    ...(options.findFaces !== null ? { findFaces: options.findFaces ?? detectFaces } : {}),
    ...(options.defaultSkip ? { defaultSkip: options.defaultSkip } : {}),
    ...(timings ? { timings } : {}),
  });
  notes.push(...look.notes);
  if (p.removeGlares === true) {
    // As documented: the detector ran and the image was submitted; "corrected" only when glare was found.
    usage.glaresDetectorCount = 1;
    usage.removeGlaresTotalCount = 1;
    usage.removeGlaresCount = look.glareFound ? 1 : 0;
  }
  const scene = look.scene;
  let raster = look.raster;
  if (p.preset !== 'none' && !look.skipped) usage.imageCorrectionCount = 1;

  const target = targetDimensions(raster.width, raster.height, p);
  if (target && (target.width !== raster.width || target.height !== raster.height)) {
    // The look has sharpened at the image's own size, before any resize.
    if (target.width > raster.width || target.height > raster.height) {
      checkUpscaleLimits(raster, target, input.length, p.resize ?? 'auto');
      raster = (await timed(timings, 'resize', () => upscaleRaster(raster, target, p.resize ?? 'auto'))).raster;
      usage.imageResizeCount = 1;
    } else {
      raster = await timed(timings, 'resize', () => resizeTo(raster, target));
      usage.classicResizeCount = 1;
    }
  }

  const format = outputFormat(p.outputType ?? 'original', source.format, p.removeBackground === true);
  const final = raster;
  let output = await timed(timings, 'encode', () =>
    encodeRaster(final, {
      format,
      quality: p.outputQuality ?? 90,
      chromaSubsampling: keptSubsampling(source.metadata, input),
      ...(p.preserveMetadata === false ? {} : { metadataFrom: input, sourceMetadata: source.metadata }),
    }),
  );
  // The kept EXIF still carries the source's thumbnail; regenerate it when asked.
  if (regeneratesThumbnail(p, format)) output = await timed(timings, 'encode', () => updateExifThumbnail(output));
  const sizeChanged = raster.width !== image.width || raster.height !== image.height;
  return {
    output,
    info: { width: raster.width, height: raster.height, format },
    scene,
    originalDimensions,
    ...(sizeChanged ? { outputDimensions: { width: raster.width, height: raster.height } } : {}),
    usage,
    applied: {
      preset: look.preset,
      aiSelection: look.aiSelection,
      colour: look.colour,
      ...(look.finish ? { finish: look.finish } : {}),
      ...(look.skipped ? { skipped: look.skipped } : {}),
    },
    notes,
  };
}

/** The input's format and header (read once: the encoder reuses it for the metadata it keeps). */
async function probeFormat(input: Buffer): Promise<{ format: OutputFormat; metadata: Metadata }> {
  let metadata: Metadata;
  try {
    // The header only: sharp's own pixel limit (268 MP) would call a larger image unreadable.
    metadata = await sharp(input, { limitInputPixels: false }).metadata();
  } catch {
    throw new EngineError('unsupported-input', 'input is not a readable image; JPEG and PNG in RGB or RGBA are supported');
  }
  const { format } = metadata;
  if (format === 'jpeg' || format === 'png') return { format, metadata };
  throw new EngineError('unsupported-input', `input is ${format ?? 'an unknown format'}; JPEG and PNG in RGB or RGBA are supported`);
}

function outputFormat(type: 'jpg' | 'png' | 'original', source: OutputFormat, removeBackground: boolean): OutputFormat {
  if (type === 'jpg') return 'jpeg';
  if (type === 'png') return 'png';
  return removeBackground ? 'png' : source;
}
