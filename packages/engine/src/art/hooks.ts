/**
 * The AI Art and video hooks in the shape of the emulator's `ImagingEngine`
 * seam (`art`, `video`), so a service can add them to its engine:
 * `startEmulator({ engine: { ...otherHooks, ...createArtEngine() } })`.
 */
import type { PfcParams } from '@pfc/core';
import type { Raster } from '../image/raster';
import { correctVideo } from '../video/correct';
import { applyAiArt, type PersonSegmenter } from './apply';

/** 8-bit interleaved pixels as services pass them (Buffer or Uint8Array). */
export interface HookImage {
  data: Uint8Array;
  width: number;
  height: number;
  channels: number;
}

/** Pixels as the hooks return them (a Buffer, as the emulator's seam expects). */
export interface HookRaster {
  data: Buffer;
  width: number;
  height: number;
  channels: 3 | 4;
}

/** What the `art` hook is given besides the image. */
export interface ArtHookContext {
  /** The job's parameters: `aiArt` (token) and `aiArtOutputSize` are read. */
  params: PfcParams;
  /** Bytes of the `aiArtReferenceFileKey` image. */
  reference?: Uint8Array;
  /** The service's person segmentation (mask, 1 channel, 255 = subject), used by characters. */
  segment?: (image: HookRaster) => Promise<HookImage>;
}

/** What the `video` hook is given besides the paths. */
export interface VideoHookContext {
  params: PfcParams;
  /** File of the custom preset named by `params.preset`. */
  presetFile?: Uint8Array;
  signal?: AbortSignal;
}

/** The hooks returned by {@link createArtEngine}. */
export interface ArtEngine {
  /** AI Art on an RGB(A) image: the re-rendered image at the `aiArtOutputSize` budget. */
  art(image: HookImage, ctx: ArtHookContext): Promise<HookRaster>;
  /** Colour-correct a video file into `outputPath` (MP4, or MOV for a .mov path). */
  video(inputPath: string, outputPath: string, ctx: VideoHookContext): Promise<{ durationSec: number; width: number; height: number; corrected: boolean }>;
}

/** Options of {@link createArtEngine}. */
export interface ArtEngineOptions {
  /** Person segmentation for characters when the caller's context brings none (e.g. the engine's `segmentPerson`). */
  segment?: PersonSegmenter;
}

/**
 * The `art` and `video` hooks of the emulator's engine seam, backed by
 * {@link applyAiArt} and {@link correctVideo}. The mask source of characters
 * is injected: the context's `segment` (the service's own), else `options.segment`.
 */
export function createArtEngine(options: ArtEngineOptions = {}): ArtEngine {
  return {
    async art(image, ctx) {
      if (image.channels !== 3 && image.channels !== 4) throw new RangeError(`art needs an RGB or RGBA image (got ${image.channels} channels)`);
      const segment: PersonSegmenter | undefined = ctx.segment
        ? async (img: Raster) => ctx.segment!({ ...img, data: asBuffer(img.data) })
        : options.segment;
      const out = await applyAiArt(
        { data: image.data, width: image.width, height: image.height, channels: image.channels },
        {
          token: ctx.params.aiArt ?? '',
          outputSize: ctx.params.aiArtOutputSize ?? '2k',
          ...(ctx.reference ? { reference: ctx.reference } : {}),
          ...(segment ? { segment } : {}),
        },
      );
      return { data: asBuffer(out.data), width: out.width, height: out.height, channels: out.channels };
    },
    async video(inputPath, outputPath, ctx) {
      const r = await correctVideo(inputPath, outputPath, ctx.params, {
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        ...(ctx.presetFile ? { presetFile: ctx.presetFile } : {}),
      });
      return { durationSec: r.durationSec, width: r.width, height: r.height, corrected: r.corrected };
    },
  };
}

function asBuffer(data: Uint8Array): Buffer {
  return Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.length);
}
