/**
 * Tasks and results of the vision workers (carried by the worker pool's
 * `{ id, task }` protocol). Pixel buffers travel as transferred
 * `ArrayBuffer`s (no copy on the way back, one copy on the way in).
 */
import type { FaceRecord } from '@pfc/core';

/** 8-bit pixels, interleaved, tightly packed. */
export interface Pixels {
  data: ArrayBuffer;
  width: number;
  height: number;
  channels: 1 | 3;
}

/**
 * Find faces on an RGB image, already scaled down to at most the detector's
 * working size; `scale` maps its pixels back to the caller's image of size
 * `width`×`height`, where the face records are reported.
 */
export interface FacesTask {
  kind: 'faces';
  image: Pixels;
  scale: number;
  width: number;
  height: number;
  /** Skip the iris and emotion models (see `FaceDetectOptions.boxesOnly`). */
  boxesOnly?: boolean;
}

/**
 * Person mask. `model` is the image stretched to the model's input (256×256 RGB);
 * `guide` is the grey image at the refinement's working size and `full` the
 * grey image at the output size (omitted when the two are the same size).
 */
export interface SegmentTask {
  kind: 'segment';
  model: Pixels;
  guide: Pixels;
  full?: Pixels;
}

export type VisionTask = FacesTask | SegmentTask;

export interface FacesResult {
  kind: 'faces';
  faces: FaceRecord[];
}

export interface SegmentResult {
  kind: 'segment';
  /** One channel, 255 = subject, the size of `full` (or `guide`). */
  mask: Pixels;
}

export type VisionResult = FacesResult | SegmentResult;

/** Where the worker finds its files (absolute paths), given as `workerData`. */
export interface WorkerConfig {
  /** Folder with `selfie.json`/`selfie.bin`. */
  modelsDir: string;
}
