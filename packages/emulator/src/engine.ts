/**
 * The seam where a real imaging engine (`@pfc/engine`) plugs into the
 * emulator's pipeline. Every hook is optional: without an engine the emulator
 * does the geometry and encoding for real and leaves the look unchanged, finds
 * no faces (auto crop falls back to a centred crop) and uses a fully opaque
 * background mask.
 */
import type { FaceRecord, PfcParams } from '@pfc/core';

/** 8-bit interleaved pixels, sRGB. */
export interface RawImage {
  data: Buffer;
  width: number;
  height: number;
  /** 3 (RGB) or 4 (RGBA); masks have 1. */
  channels: 1 | 3 | 4;
}

/** What the engine found on the full, auto-oriented image. */
export interface Detection {
  faces: FaceRecord[];
  /** Detected scene category (the `scene` of detectionData). */
  scene?: number;
  /** Whether glasses glare was found (counts `removeGlaresCount`). */
  glare?: boolean;
  noise?: string;
  redEye?: string;
}

export interface LookContext {
  /** The effective parameters of the job. */
  params: PfcParams;
  /** Bytes of the custom preset file when `preset` names a custom preset. */
  presetFile?: Buffer;
  detection?: Detection;
}

/** Optional hooks of an imaging engine; see the emulator README. */
export interface ImagingEngine {
  /** Faces and scene on the full image (RGB), before crop and resize. */
  detect?(image: RawImage): Promise<Detection>;
  /** The correction look (preset, retouching), on the cropped and resized image (RGB or RGBA). */
  look?(image: RawImage, ctx: LookContext): Promise<RawImage>;
  /** Foreground mask (1 channel, 255 = subject) for background removal, same size as the image. */
  segment?(image: RawImage): Promise<RawImage>;
}
