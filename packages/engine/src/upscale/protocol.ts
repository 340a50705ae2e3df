/** Tasks and results of the upscale workers (carried by the worker pool's `{ id, task }` protocol). */

/** Upscale one tile (RGB, 8-bit, tightly packed) by the model's factor. */
export interface UpscaleTask {
  /** 2 or 4: which model. */
  factor: 2 | 4;
  data: ArrayBuffer;
  width: number;
  height: number;
}

/** The enlarged tile: RGB, `width`×`height` = the task's size × factor. */
export interface UpscaleResult {
  data: ArrayBuffer;
  width: number;
  height: number;
}

/** What a worker is started with. */
export interface UpscaleWorkerConfig {
  /** Folder holding `x2/` and `x4/` (model.json + weights). */
  modelsDir: string;
}
