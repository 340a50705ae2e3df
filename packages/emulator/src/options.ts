/** Options of `startEmulator` and the `pfc-emulator` bin, with their defaults. */
import type { BgrServerOptions } from './bgr/server';
import type { ContainerServerOptions } from './container/options';
import type { ImagingEngine } from './engine';
import type { FaultConfig } from './faults';

/** Size limits the emulator enforces; defaults are the documented ones. */
export interface EmulatorLimits {
  /** Images must be below this many pixels. Default 200,000,000 (200 MP). */
  maxImagePixels: number;
  /** Longest side of an input image, pixels. Default 100,000. */
  maxImageSide: number;
  /** Shortest side of an input image, pixels. Default 32. */
  minImageSide: number;
  /** Aspect ratio (long:short) must be below this. Default 21. */
  maxAspectRatio: number;
  /** Largest accepted video, bytes. Default 5 GB (5,000,000,000). */
  maxVideoBytes: number;
  /** Largest body of a pre-signed file PUT, bytes (answered 413 above). Default 5 GB. */
  maxUploadBytes: number;
  /** Largest preset file, bytes. Default 10 MB. */
  maxPresetBytes: number;
  /** AI upscaling: input below this many bytes. Default 50 MB (50,000,000). */
  maxUpscaleInputBytes: number;
  /** AI upscaling: shortest input side at least this, pixels. Default 64. */
  minUpscaleShortSide: number;
  /** AI upscaling output longest side with `resize=auto|general`, pixels. Default 20,000. */
  maxUpscaleSideGeneral: number;
  /** AI upscaling output longest side with `resize=smallDetails`, pixels. Default 8,192. */
  maxUpscaleSideSmallDetails: number;
  /** Background removal: input below this many bytes. Default 30 MB (30,000,000). */
  maxBackgroundInputBytes: number;
  /** Background removal: longer output sides are scaled down to this, pixels. Default 5,000. */
  maxBackgroundOutputSide: number;
}

export const DEFAULT_LIMITS: EmulatorLimits = {
  maxImagePixels: 200_000_000,
  maxImageSide: 100_000,
  minImageSide: 32,
  maxAspectRatio: 21,
  maxVideoBytes: 5_000_000_000,
  maxUploadBytes: 5_000_000_000,
  maxPresetBytes: 10_000_000,
  maxUpscaleInputBytes: 50_000_000,
  minUpscaleShortSide: 64,
  maxUpscaleSideGeneral: 20_000,
  maxUpscaleSideSmallDetails: 8_192,
  maxBackgroundInputBytes: 30_000_000,
  maxBackgroundOutputSide: 5_000,
};

/** Options of {@link startEmulator}. Every field is optional. */
export interface EmulatorOptions {
  /** Interface to listen on. Default `127.0.0.1`. */
  host?: string;
  /** Port of the Web API. Default 0 (any free port); the bin defaults to 8080. */
  webPort?: number;
  /**
   * Accepted API keys (`X-API-KEY`). Default: none configured, and then any
   * non-empty key is accepted (a missing or empty key is still 401).
   */
  apiKeys?: string[];
  /** Folder for uploads, outputs and presets. Default: a fresh temporary folder, removed by `close()`. */
  dataDir?: string;
  /**
   * Least time each job spends in PROCESSING (holding a worker), ms, its real
   * work included: the emulator waits for whatever the work left of it, so
   * `workers` ÷ `processingMs` bounds the jobs finished per ms. Default 0.
   */
  processingMs?: number;
  /** Jobs processed at once; the rest wait in PENDING. Default 2. */
  workers?: number;
  /** How long result URLs stay reachable, minutes (decimals allowed). Default 1440 (24 h). */
  retentionMinutes?: number;
  /** How long uploaded files (and so their fileKeys as bgFileKey) are kept, minutes. Default 10080 (7 days). */
  uploadRetentionMinutes?: number;
  /** How long a pre-signed upload address is valid, seconds. Default 3600. */
  uploadUrlTtlSeconds?: number;
  /** Size limits; unspecified fields keep the documented defaults. */
  limits?: Partial<EmulatorLimits>;
  /**
   * Serve the `/_emulator/*` control routes (stats, faults, sweep, job records).
   * Default false: a running emulator is reachable from any web page the user
   * visits, which must not be able to inject faults or read job records. When
   * `apiKeys` are configured the routes need one of them; they never carry
   * CORS headers and take only JSON bodies.
   */
  control?: boolean;
  /** Initial fault injection (also settable at run time via `POST /_emulator/faults` when `control` is on). */
  faults?: FaultConfig;
  /**
   * Imaging engine hooks (look, faces, background mask, AI Art, video) of the
   * Web API and both container emulations. Default: `@pfc/engine`'s
   * `createImagingEngine()`, one per process; `{}` for none (geometry and
   * encoding only).
   */
  engine?: ImagingEngine;
  /** Clock in ms since the epoch; tests inject one to expire results without waiting. Default `Date.now`. */
  now?: () => number;
  /** Receives one line per request and per unexpected error (never keys). Default: silent. */
  log?: (line: string) => void;
  /** The colour-correction container emulation; `false` to not start it. Default: started on any free port (the bin: 8081). */
  container?: ContainerServerOptions | false;
  /** The background-removal container emulation; `false` to not start it. Default: started on any free port (the bin: 8000). */
  bgr?: BgrServerOptions | false;
}
