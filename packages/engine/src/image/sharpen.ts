/**
 * Unsharp mask on lightness through libvips (`sharpen` works on CIELAB L
 * and leaves a and b alone), with its radius scaled to the image size. The
 * mask can run on its own (raw pixels in and out) or inside the encoder's
 * pipeline ({@link withSharpen}), where libvips streams it in tiles on all
 * of its threads while the encoder writes, and no sharpened full-size copy
 * is made.
 */
import type { Sharp } from 'sharp';
import { rasterToSharp, type Raster } from './raster';

/** The parameters of one unsharp mask (sharp's `sharpen` options). */
export interface SharpenSpec {
  /** Gaussian σ of the mask, pixels. */
  sigma: number;
  /** Gain on flat areas (|ΔL| below `x1`). */
  m1: number;
  /** Gain on edges. */
  m2: number;
  /** Threshold between flat and edge, in L units. */
  x1: number;
}

/**
 * The mask for an image of this size and amount 0..2 (0: none): σ = long
 * side / 1500 within 0.6..2 px, so the look is the same at any resolution;
 * flat areas get a third of the edges' gain.
 */
export function sharpenSpec(width: number, height: number, amount: number): SharpenSpec | undefined {
  if (!(amount > 0)) return undefined;
  const sigma = Math.max(0.6, Math.min(2, Math.max(width, height) / 1500));
  return { sigma, m1: 0.5 * amount, m2: 1.5 * amount, x1: 2 };
}

/** The pipeline with the mask added (sharp runs it after any resize and before composite/encode). */
export function withSharpen(pipeline: Sharp, spec: SharpenSpec | undefined): Sharp {
  return spec ? pipeline.sharpen({ sigma: spec.sigma, m1: spec.m1, m2: spec.m2, x1: spec.x1 }) : pipeline;
}

/** A sharpened copy of a raster (same size and channels). */
export async function sharpenRaster(img: Raster, spec: SharpenSpec): Promise<Raster> {
  const { data, info } = await withSharpen(rasterToSharp(img), spec).raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height, channels: img.channels };
}
