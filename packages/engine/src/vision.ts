/**
 * Vision: faces with eye positions and person segmentation, on
 * TensorFlow.js' WASM backend in worker threads (models load once per
 * worker; see README "Vision"). The emulator plugs these in through its
 * `ImagingEngine` hooks with `createDetectionEngine()`.
 */
import type { FaceRecord } from '@pfc/core';
import { detectFaces } from './faces/detect';
import { segmentPerson, type Mask } from './segment/segment';
import { closeVisionWorkers, type VisionImage } from './vision/shared';

export { detectFaces, DETECT_MAX_SIDE, type FaceDetectOptions } from './faces/detect';
export { segmentPerson, SEGMENT_MODEL_SIDE, SEGMENT_WORK_SIDE, type Mask } from './segment/segment';
export { toFaceRecord, toFaceRecords, type HumanFace } from './faces/records';
export { refineMask, type RefineOptions, type GreyImage } from './segment/refine';
export { closeVisionWorkers, type VisionImage } from './vision/shared';

/** The detection and segmentation hooks of the emulator's `ImagingEngine`. */
export interface DetectionEngine {
  /** Faces on the full, auto-oriented image (largest first). `scene` and the other fields are left to the look engine. */
  detect(image: VisionImage): Promise<{ faces: FaceRecord[] }>;
  /** Person mask, one channel, 255 = subject, the image's size. */
  segment(image: VisionImage): Promise<Mask>;
}

/**
 * `{ detect, segment }` for the emulator's `ImagingEngine`, e.g.
 * `{ ...createDetectionEngine(), look }`. The workers are shared by every
 * engine of the process; `closeVisionWorkers()` stops them.
 */
export function createDetectionEngine(): DetectionEngine {
  return {
    detect: async (image) => ({ faces: await detectFaces(image) }),
    segment: (image) => segmentPerson(image),
  };
}

/** Alias of `closeVisionWorkers`. */
export const closeEngineWorkers = closeVisionWorkers;

export { autoCropBox, headTop, AUTOCROP_TYPES, type AutoCropParams } from './crop/autocrop';
