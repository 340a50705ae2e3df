/** Messages between the main thread and an upscale worker. */

/** Upscale one tile (RGB, 8-bit) by the model's factor. */
export interface UpscaleRequest {
  id: number;
  /** 2 or 4: which model. */
  factor: 2 | 4;
  data: ArrayBuffer;
  width: number;
  height: number;
}

export type UpscaleReply = { id: number; ok: true; data: ArrayBuffer; width: number; height: number } | { id: number; ok: false; error: string };

/** What a worker is started with. */
export interface UpscaleWorkerConfig {
  /** Folder holding `x2/` and `x4/` (model.json + weights). */
  modelsDir: string;
}
