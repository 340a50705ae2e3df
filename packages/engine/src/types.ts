/**
 * Public input and output shapes of {@link correctImage}.
 */
import type { CropBox, DetectionData, Dimensions, JobUsage } from '@pfc/core';
import type { ColourParams } from './colour/params';
import type { FinishAmounts } from './colour/finish';
import type { OutputFormat } from './image/encode';
import type { FaceFinder } from './look';
import type { StepTimings } from './timings';

/** Resources a job refers to by key; the caller (a service) resolves the keys to bytes. */
export interface CorrectOptions {
  /** File of the custom preset named by `params.preset` (uploaded or mounted). */
  presetFile?: Uint8Array;
  /** Background image for `bgFileKey`. */
  backgroundImage?: Uint8Array;
  /** Style-reference image for `aiArtReferenceFileKey`. */
  artReference?: Uint8Array;
  /** Skip mode when `params.skip` is not given (the container's PFC_SKIP_MODE). Default `clipart`. */
  defaultSkip?: 'clipart' | 'legacy' | 'none';
  /**
   * Face detector for the scene (portrait, group) under AI preset selection.
   * Default: the engine's `detectFaces` (worker threads, models loaded once
   * per process); `null` for none (then no portrait or group scenes).
   */
  findFaces?: FaceFinder | null;
  /**
   * A record the engine adds each step's wall time to, in milliseconds (see
   * `CorrectionStep`); for benchmarks. Reuse one record over many calls to
   * sum them. Omit it and nothing is measured.
   */
  timings?: StepTimings;
}

/** Everything a job record needs from the engine. */
export interface CorrectResult {
  /** Encoded output (JPEG or PNG). */
  output: Buffer;
  info: Dimensions & { format: OutputFormat };
  /** Detected scene category (see `SCENE`); −1 when not analysed. */
  scene: number;
  originalDimensions: Dimensions;
  /** Set when the output size differs from the input's (crop, resize). */
  outputDimensions?: Dimensions;
  /** The detected crop in input pixels (also when only detected). */
  autoCrop?: CropBox;
  /** Face and scene data, when `includeDetectionData` is set. */
  detectionData?: DetectionData;
  usage: JobUsage;
  /** What the engine applied, for logs and reports. */
  applied: {
    preset: string;
    aiSelection: boolean;
    colour: ColourParams;
    /** The sharpening and vibrance amounts applied (`colour`'s, scaled by what the photo needs); absent when nothing was corrected. */
    finish?: FinishAmounts;
    skipped?: string;
  };
  /** Remarks for the job's statusText (e.g. an unreadable preset file); empty when none. */
  notes: string[];
}
