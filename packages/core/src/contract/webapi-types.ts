/**
 * Wire types of the hosted Web API v2 (`../shared/spec/web-api-v2.md`), shared by
 * the client (`@pfc/core`) and the emulator (`@pfc/emulator`) so they cannot drift.
 */

/** Job states of `GET /status/{jobID}`. */
export const JOB_STATES = ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'REJECTED'] as const;
export type JobState = (typeof JOB_STATES)[number];

/** Answer of `GET /upload`. The real service spells the address `upload_url`; read both. */
export interface UploadTicket {
  fileKey: string;
  uploadUrl?: string;
  upload_url?: string;
}

/** Answer of `GET /pfc`. */
export interface JobStartResponse {
  statusEndpoint: string;
}

export interface Dimensions {
  width: number;
  height: number;
}

export interface CropBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Per-job counters of the job record. All integers except `size`. */
export interface JobUsage {
  /** Input size category: MEDIUM or LARGE (the full set is not documented). */
  size: string;
  imageCorrectionCount: number;
  imageResizeCount: number;
  classicResizeCount: number;
  videoCorrectionCount: number;
  removeBackgroundCount: number;
  autoCropCount: number;
  glaresDetectorCount: number;
  removeGlaresTotalCount: number;
  removeGlaresCount: number;
}

/** Input pixel count above which `usage.size` is LARGE (else MEDIUM): 12 MP, a typical phone photo. The document shows only these two values. */
export const LARGE_IMAGE_PIXELS = 12_000_000;

/** The `usage.size` category of an input of `pixels` pixels. */
export function usageSizeOf(pixels: number): 'LARGE' | 'MEDIUM' {
  return pixels > LARGE_IMAGE_PIXELS ? 'LARGE' : 'MEDIUM';
}

/** A usage record with every counter at zero, for an input of the given size category. */
export function emptyJobUsage(size: string): JobUsage {
  return {
    size,
    imageCorrectionCount: 0,
    imageResizeCount: 0,
    classicResizeCount: 0,
    videoCorrectionCount: 0,
    removeBackgroundCount: 0,
    autoCropCount: 0,
    glaresDetectorCount: 0,
    removeGlaresTotalCount: 0,
    removeGlaresCount: 0,
  };
}

export interface Point {
  x: number;
  y: number;
}

export interface FaceRecord {
  confidence: number;
  angle: number;
  blink: number;
  smile: number;
  yawAngle: number;
  left: number;
  top: number;
  width: number;
  height: number;
  leftEye: Point;
  rightEye: Point;
}

export interface DetectionData {
  facesCount: number;
  faces: FaceRecord[];
  scene: number;
  noise: string;
  redEye: string;
  warnings: unknown[];
  message: string;
  status: string;
}

/** Job status record of `GET /status/{jobID}`. */
export interface JobRecord {
  _id: string;
  status: JobState;
  statusText: string;
  code: number;
  correctedFile?: string;
  /** ISO 8601 UTC with milliseconds. */
  createdAt: string;
  updatedAt: string;
  usage: JobUsage;
  aiserver: boolean;
  /** Seconds, decimal. */
  timeTaken: number;
  originalDimensions?: Dimensions;
  outputDimensions?: Dimensions;
  autoCrop?: CropBox;
  detectionData?: DetectionData;
}

/** A custom preset record (`GET /presets`, `GET /presets/{id}`). */
export interface PresetRecord {
  presetId: string;
  name: string;
  description: string;
  /** Address of the preset file (observed behaviour #7); fetched with the API key. */
  uri?: string;
  [extra: string]: unknown;
}

/** Answer of `POST /presets/`. */
export interface PresetCreateResponse {
  presetId: string;
  uploadUrl: string;
}

/** Answer of `GET /presets` (observed behaviour #6). */
export interface PresetListResponse {
  presets: PresetRecord[];
}

/** Error body shape the emulator uses and the client parses leniently. */
export interface ErrorBody {
  error: string;
  [extra: string]: unknown;
}
