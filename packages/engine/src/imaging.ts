/**
 * One imaging engine for a service (the emulator and its container
 * emulations): faces and scene, the correction look, person segmentation,
 * AI Art and video. The shape is the emulator's `ImagingEngine` seam.
 */
import { availableParallelism } from 'node:os';
import sharp from 'sharp';
import { backgroundMode, colourToHex, type FaceRecord, type PfcParams } from '@pfc/core';
import { composeBackground } from './background/compose';
import { createArtEngine, type ArtEngine } from './art/hooks';
import { decodeRaster, thumbnailRaster, type Raster } from './image/raster';
import { createLookEngine, type LookHookContext, type LookImage } from './look';
import { detectScene } from './scene/detect';
import { findGlare } from './retouch/glare';
import { upscaleRaster } from './upscale/upscale';
import { updateExifThumbnail } from './image/exif-thumbnail';
import { createDetectionEngine, detectFaces, segmentPerson, type Mask, type VisionImage } from './vision';

/** Faces and scene of one image, as the emulator's `Detection`. */
export interface ImageDetection {
  faces: FaceRecord[];
  /** Scene category (see `SCENE`). */
  scene: number;
  /** Whether glasses glare was found on a face (the job's `removeGlaresCount`). */
  glare: boolean;
}

/** The hooks of {@link createImagingEngine}. */
export interface ImagingHooks extends ArtEngine {
  /** Faces (with eyes), the scene and glasses glare, on the full auto-oriented image. */
  detect(image: VisionImage): Promise<ImageDetection>;
  /** The correction look: preset (AI selection by scene), custom preset files, skip rule. */
  look(image: LookImage, ctx: LookHookContext): Promise<LookImage & { data: Buffer; notes: string[]; scene: number }>;
  /** Person mask, 1 channel, 255 = subject, the image's size. */
  segment(image: VisionImage): Promise<Mask>;
  /** Regenerate a finished JPEG's EXIF thumbnail (`updateThumbnail`). */
  thumbnail(jpeg: Buffer): Promise<Buffer>;
  /** AI upscaling to `target` (ESRGAN-slim; `params.resize` picks the model). */
  upscale(image: VisionImage, target: { width: number; height: number }, ctx: { params: PfcParams }): Promise<Omit<Raster, 'data'> & { data: Buffer }>;
  /** Background removal and replacement in the job's mode (rule 2), with `bgShadow`; RGBA for transparent, else RGB. */
  background(image: VisionImage, mask: VisionImage, ctx: { params: PfcParams; background?: Uint8Array }): Promise<Omit<Raster, 'data'> & { data: Buffer }>;
}

/** Options of {@link createImagingEngine}. */
export interface ImagingEngineOptions {
  /** Skip mode when a job sends none (the container's PFC_SKIP_MODE). Default `clipart`. */
  defaultSkip?: 'clipart' | 'legacy' | 'none';
}

/**
 * The engine hooks for a service: `startEmulator({ engine: createImagingEngine() })`.
 * Models load once per process, in worker threads shared by every engine.
 * Also sets sharp's thread count to the machine's cores (sharp defaults to
 * fewer on some machines; a full pipeline was about 20 % faster with all).
 */
export function createImagingEngine(options: ImagingEngineOptions = {}): ImagingHooks {
  if (sharp.concurrency() < availableParallelism()) sharp.concurrency(availableParallelism());
  const detection = createDetectionEngine();
  const { look } = createLookEngine({
    // AI preset selection tells portraits and groups by their faces, also
    // when the job itself did not ask for detection.
    findFaces: (image: Raster, options) => detectFaces(image, options),
    ...(options.defaultSkip ? { defaultSkip: options.defaultSkip } : {}),
  });
  const { art, video } = createArtEngine({ segment: (image) => segmentPerson(image) });
  return {
    art,
    video,
    async detect(image) {
      const { faces } = await detection.detect(image);
      const raster: Raster = image.channels === 1 ? await decodeGrey(image) : { ...image, channels: image.channels };
      const thumb = await thumbnailRaster(raster, 400);
      const rel = faces.map((f) => ({ width: f.width / image.width, height: f.height / image.height }));
      return { faces, scene: detectScene(thumb, rel).scene, glare: findGlare(raster, faces).found };
    },
    look,
    segment: (image) => detection.segment(image),
    thumbnail: (jpeg) => updateExifThumbnail(jpeg),
    async upscale(image, target, { params }) {
      if (image.channels === 1) throw new Error('upscale: expected an RGB or RGBA image, got one channel');
      const { raster } = await upscaleRaster({ ...image, channels: image.channels }, target, params.resize ?? 'auto');
      return { ...raster, data: Buffer.from(raster.data.buffer, raster.data.byteOffset, raster.data.length) };
    },
    async background(image, mask, { params, background }) {
      const mode = backgroundMode(params) ?? 'transparent';
      if (image.channels === 1 || mask.channels !== 1) throw new Error('background: expected an RGB(A) image and a one-channel mask');
      const colour = mode === 'colour' && params.bgColor ? colourToHex(params.bgColor) : undefined;
      const out = await composeBackground({ ...image, channels: image.channels }, mask, {
        mode,
        ...(colour ? { colour } : {}),
        ...(background ? { image: background } : {}),
        ...(params.bgGenerativePrompt ? { prompt: params.bgGenerativePrompt } : {}),
        ...(params.bgShadow ? { shadow: params.bgShadow } : {}),
      });
      return { ...out, data: Buffer.from(out.data.buffer, out.data.byteOffset, out.data.length) };
    },
  };
}

async function decodeGrey(image: VisionImage): Promise<Raster> {
  return decodeRaster(await sharp(image.data, { raw: { width: image.width, height: image.height, channels: 1 } }).png().toBuffer());
}
