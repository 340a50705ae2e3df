/**
 * The seam where a real imaging engine (`@pfc/engine`) plugs into the
 * emulator's pipeline. Every hook is optional: without an engine the emulator
 * does the geometry and encoding for real and leaves the look unchanged, finds
 * no faces (auto crop falls back to a centred crop), uses a fully opaque
 * background mask, and rejects AI Art and video jobs (501).
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
  /**
   * False: no beautify corrections (nothing found or changed on faces: skin, retouching). The colour
   * container disables them for images wider than 21:1 (its "Limits" table). Default true.
   */
  beautify?: boolean;
}

export interface ArtContext {
  /** The effective parameters of the job (`aiArt`, `aiArtOutputSize`). */
  params: PfcParams;
  /** Bytes of the `aiArtReferenceFileKey` image. */
  reference?: Buffer;
  /** The engine's own `segment` hook, when it has one: the person mask of characters. */
  segment?: (image: RawImage) => Promise<RawImage>;
}

export interface VideoContext {
  /** The effective parameters of the job (`preset`). */
  params: PfcParams;
  /** Bytes of the custom preset file when `preset` names a custom preset. */
  presetFile?: Buffer;
  /** Aborted when the emulator closes. */
  signal: AbortSignal;
}

/** What the video hook reports about the file it corrected. */
export interface VideoOutcome {
  durationSec: number;
  width: number;
  height: number;
  /** False when the streams were copied unchanged (e.g. `preset=none`). */
  corrected: boolean;
}

export interface BackgroundContext {
  /** The effective parameters of the job (`bgColor`, `bgGenerativePrompt`, `bgShadow`; the mode by rule 2). */
  params: PfcParams;
  /** Bytes of the `bgFileKey` image (image mode). */
  background?: Buffer;
}

/** Optional hooks of an imaging engine; see the emulator README. */
export interface ImagingEngine {
  /** Faces and scene on the full image (RGB), before crop and resize. */
  detect?(image: RawImage): Promise<Detection>;
  /**
   * The correction look (preset, retouching), on the cropped and resized image (RGB or RGBA).
   * `notes` (e.g. a preset file in a format the engine does not read) become the job's statusText.
   */
  look?(image: RawImage, ctx: LookContext): Promise<RawImage & { notes?: string[] }>;
  /** Foreground mask (1 channel, 255 = subject) for background removal, same size as the image. */
  segment?(image: RawImage): Promise<RawImage>;
  /** Regenerate the EXIF thumbnail of the finished JPEG (`updateThumbnail`); returns the new file. */
  thumbnail?(jpeg: Buffer): Promise<Buffer>;
  /**
   * AI upscaling (`resize` auto/general/smallDetails) of the cropped image to `target` when the output is
   * larger than the input; without it the emulator enlarges with Lanczos.
   */
  upscale?(image: RawImage, target: { width: number; height: number }, ctx: { params: PfcParams }): Promise<RawImage>;
  /**
   * Background removal and replacement in the job's mode (transparent, colour, image, generative) with
   * `bgShadow`, given `segment`'s mask: RGBA for transparent, else RGB. Without it the emulator composes
   * transparent, colour and image itself (no shadow) and rejects generative backgrounds (501).
   */
  background?(image: RawImage, mask: RawImage, ctx: BackgroundContext): Promise<RawImage>;
  /** AI Art (`aiArt`) on the corrected image; the result may have another size (`aiArtOutputSize`). */
  art?(image: RawImage, ctx: ArtContext): Promise<RawImage>;
  /** Colour-correct an MP4/MOV file into `outputPath` (same container), streaming; the emulator publishes the file. */
  video?(inputPath: string, outputPath: string, ctx: VideoContext): Promise<VideoOutcome>;
}
