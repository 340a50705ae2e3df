/** Options of `startEmulator` and the `pfc-emulator` bin, with their defaults. */
import type { BgrServerOptions } from './bgr/server';
import type { ContainerServerOptions } from './container/options';
import type { ImagingEngine } from './engine';
import type { FaultConfig } from './faults';
import type { AccountLimits } from './webapi/account-limits';

/** Size limits the emulator enforces; defaults are the documented ones. */
export interface EmulatorLimits {
  /** Images must be below this many pixels. Default 200,000,000 (200 MP). */
  maxImagePixels: number;
  /** Longest side of an input image, pixels. Default 100,000. */
  maxImageSide: number;
  /** Both sides of an input image must be larger than this, pixels. Default 32. */
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

/**
 * The pre-signed storage behind `uploadUrl` and `correctedFile` (see
 * `src/webapi/storage-rules.ts` and the README's "Pre-signed storage").
 */
export interface StorageOptions {
  /** Port of the storage's own origin; 0 = any free port. Default 0 (the bin: 8082). */
  port?: number;
  /** Interface and host name of the storage origin. Default: the API's `host`. */
  host?: string;
  /** Serve uploads and results under the API's own `/v2` instead of a second origin. Default false. */
  sameOrigin?: boolean;
  /**
   * Accept any `Content-Type`, chunked bodies, and answer in JSON, as the
   * emulator did before it modelled object storage. Default false (strict).
   */
  lenient?: boolean;
  /** The `Content-Type` file upload addresses are signed for; '' = none (the vendor's clients send none). Default ''. */
  signedContentType?: string;
}

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
  /**
   * Spread of job times: σ of a log-normal whose median is `processingMs`
   * (plus its size share); 0.5 puts half the jobs within ×0.71–×1.40 of the
   * median and one in twenty above ×2.3. Default 0 (every job the same).
   */
  processingSigma?: number;
  /** Added to a job's median time per megapixel of its input, ms. Default 0. */
  processingMsPerMegapixel?: number;
  /** Seed of the job-time draws (same seed and job order, same times). Default 1. */
  processingSeed?: number;
  /** Jobs processed at once; the rest wait in PENDING. Default 2. */
  workers?: number;
  /**
   * A job PROCESSING longer than this ends FAILED (`statusText` says it timed
   * out) and frees its worker, as a hosted service's job time limit does; the
   * contract shows no value, so the default is an assumption. ms; 0 = never.
   * Default 600000 (10 minutes).
   */
  jobTimeoutMs?: number;
  /** How long result URLs stay reachable, minutes (decimals allowed). Default 1440 (24 h). */
  retentionMinutes?: number;
  /** How long uploaded files (and so their fileKeys as bgFileKey) are kept, minutes. Default 10080 (7 days). */
  uploadRetentionMinutes?: number;
  /** How long a pre-signed upload address is valid, seconds. Default 3600. */
  uploadUrlTtlSeconds?: number;
  /** Size limits; unspecified fields keep the documented defaults. */
  limits?: Partial<EmulatorLimits>;
  /**
   * A connection of the Web API or the storage with nothing sent or received
   * for this long is closed, ms (a stalled upload body is cut off: 400
   * `RequestTimeout` from the strict storage); 0 = never. Default 60,000.
   */
  idleTimeoutMs?: number;
  /** Per-key limits (jobs PENDING or PROCESSING, keyed requests per second), answered 429 + Retry-After. Default: none. */
  accountLimits?: AccountLimits;
  /** Where and how strictly pre-signed uploads and results are served. Default: strict, on a second origin. */
  storage?: StorageOptions;
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
  /**
   * Secret of the pre-signed upload and result addresses. Default: drawn at
   * start. A host that starts an emulator again at the same address (VS
   * Code's embedded one, after a crash) gives the same one, so an address
   * issued before is answered "no longer known" (404), as for an upload the
   * service has forgotten, not "signature does not match" (403), which a
   * client rightly takes for refused credentials.
   */
  signingSecret?: string;
  /** Receives one line per request and per unexpected error (never keys). Default: silent. */
  log?: (line: string) => void;
  /** The colour-correction container emulation; `false` to not start it. Default: started on any free port (the bin: 8081). */
  container?: ContainerServerOptions | false;
  /** The background-removal container emulation; `false` to not start it. Default: started on any free port (the bin: 8000). */
  bgr?: BgrServerOptions | false;
  /**
   * More colour-correction container instances beside `container` (a fleet for
   * tests and benchmarks), each on any free port with its own folders; each
   * entry's options (e.g. `processingMs`, `workers`) override `container`'s.
   * Their URLs are `urls.container2`, `urls.container3`… Default: none.
   */
  containerInstances?: ContainerServerOptions[];
}
