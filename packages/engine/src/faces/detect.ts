/**
 * Face detection with eye positions: MediaPipe BlazeFace, FaceMesh and Iris
 * (plus an emotion model for `smile`) through `@vladmandic/human` on the
 * TensorFlow.js WASM backend, in a worker thread. See `records.ts` for the
 * units and ranges of the records.
 */
import type { FaceRecord } from '@pfc/core';
import { EngineError } from '../errors';
import { checkImage, fitInside, pixels, rgb, visionPool, type VisionImage } from '../vision/shared';

/**
 * Long side (px) the detector works at. The face detector itself looks at a
 * 256 px copy, so larger inputs only cost time; coordinates are scaled back.
 */
export const DETECT_MAX_SIDE = 1280;

/** Options of {@link detectFaces}. */
export interface FaceDetectOptions {
  /**
   * Only the faces and their boxes are needed (the look's scene): the iris
   * and emotion models are skipped, which costs about half of the time on a
   * photo with a face. The same faces and boxes (both come from the face
   * mesh); the eyes are then the centres of the mesh's eye contours instead
   * of the irises, and `smile` is 0. Default false.
   */
  boxesOnly?: boolean;
}

/**
 * Finds faces: boxes, eye centres, roll, yaw, blink and smile, largest face
 * first; `[]` when there is none. Coordinates are pixels of `image` (which
 * should be auto-oriented). Faces smaller than about 1/20 of the long side,
 * or with a detector score under 50 %, are not reported.
 * @throws EngineError `unsupported-input` for a malformed image, `processing` when the models fail.
 */
export async function detectFaces(image: VisionImage, options: FaceDetectOptions = {}): Promise<FaceRecord[]> {
  checkImage(image, 'detectFaces image');
  const size = fitInside(image.width, image.height, DETECT_MAX_SIDE);
  let s = rgb(image);
  if (size.width !== image.width) s = s.resize(size.width, size.height, { fit: 'fill' });
  const input = await pixels(s, 3);
  const result = await visionPool().run(
    { kind: 'faces', image: input, scale: image.width / input.width, width: image.width, height: image.height, ...(options.boxesOnly ? { boxesOnly: true } : {}) },
    [input.data],
  );
  if (result.kind !== 'faces') throw new EngineError('processing', 'internal: vision worker answered a faces request with a segment result');
  return result.faces;
}
