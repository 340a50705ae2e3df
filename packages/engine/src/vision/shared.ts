/**
 * Main-thread side shared by face detection and segmentation: the one
 * worker pool of the process, input checks, and pixel hand-over.
 */
import sharp, { type Sharp } from 'sharp';
import { EngineError } from '../errors';
import { modelsDir, workerScript } from '../workers/paths';
import { WorkerPool } from '../workers/pool';
import type { Pixels, VisionResult, VisionTask, WorkerConfig } from './protocol';

/** 8-bit interleaved pixels (sRGB), the shape of the emulator's `RawImage`. */
export interface VisionImage {
  data: Uint8Array;
  width: number;
  height: number;
  /** 1 (grey), 3 (RGB) or 4 (RGBA; alpha is ignored). */
  channels: 1 | 3 | 4;
}

let pool: WorkerPool<VisionTask, VisionResult> | undefined;

/** The process's vision worker pool, started on first use. */
export function visionPool(): WorkerPool<VisionTask, VisionResult> {
  pool ??= new WorkerPool({ name: 'vision', script: workerScript('vision-worker'), workerData: { modelsDir: modelsDir() } satisfies WorkerConfig });
  return pool;
}

/**
 * Stops the vision worker threads (face detection, segmentation). Not needed
 * for a process to exit (idle workers do not keep it alive); use it to free
 * their memory (about 100–200 MB each with models loaded) or in test
 * teardown. Calls in flight fail; the next call starts new workers.
 */
export async function closeVisionWorkers(): Promise<void> {
  const p = pool;
  pool = undefined;
  await p?.close();
}

/** Throws `EngineError('unsupported-input')` naming the field at fault. */
export function checkImage(image: VisionImage, what: string): void {
  const { width, height, channels, data } = image;
  if (!Number.isInteger(width) || width < 1 || !Number.isInteger(height) || height < 1) {
    throw new EngineError('unsupported-input', `${what}: width and height must be positive integers (got ${width}×${height})`);
  }
  if (channels !== 1 && channels !== 3 && channels !== 4) throw new EngineError('unsupported-input', `${what}: channels must be 1, 3 or 4 (got ${String(channels)})`);
  if (data.length !== width * height * channels) {
    throw new EngineError('unsupported-input', `${what}: data has ${data.length} bytes, expected width × height × channels = ${width * height * channels}`);
  }
}

/** A sharp pipeline over the image's pixels. */
export function pipeline(image: VisionImage): Sharp {
  return sharp(image.data, { raw: { width: image.width, height: image.height, channels: image.channels } });
}

/** Output of a pipeline as transferable pixels; checks the channel count sharp produced. */
export async function pixels(s: Sharp, channels: 1 | 3): Promise<Pixels> {
  const { data, info } = await s.raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  if (info.channels !== channels) throw new EngineError('processing', `internal: expected ${channels} channels, sharp gave ${info.channels}`);
  // A fresh ArrayBuffer of exactly these bytes, so it can be transferred to the worker.
  const copy = new Uint8Array(data.length);
  copy.set(data);
  return { data: copy.buffer, width: info.width, height: info.height, channels };
}

/** RGB pipeline: alpha dropped, grey expanded to three channels. */
export function rgb(image: VisionImage): Sharp {
  const s = pipeline(image);
  return image.channels === 4 ? s.removeAlpha() : image.channels === 1 ? s.toColourspace('srgb') : s;
}

/** Fits `width`×`height` inside a square of `maxSide`, aspect kept; unchanged when already inside. */
export function fitInside(width: number, height: number, maxSide: number): { width: number; height: number } {
  const long = Math.max(width, height);
  if (long <= maxSide) return { width, height };
  const k = maxSide / long;
  return { width: Math.max(1, Math.round(width * k)), height: Math.max(1, Math.round(height * k)) };
}
