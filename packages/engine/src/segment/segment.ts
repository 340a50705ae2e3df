/**
 * Person segmentation: the MediaPipe selfie segmentation model (general,
 * 256×256) on the TensorFlow.js WASM backend in a worker thread, its mask
 * refined at full resolution with a guided filter (`refine.ts`).
 */
import { EngineError } from '../errors';
import { checkImage, fitInside, pipeline, pixels, rgb, visionPool, type VisionImage } from '../vision/shared';

/** Side of the model's square input, px. */
export const SEGMENT_MODEL_SIDE = 256;
/** Long side (px) at which the guided filter's coefficients are computed. */
export const SEGMENT_WORK_SIDE = 1024;

/** A one-channel mask, 255 = subject, the input's size. */
export interface Mask {
  data: Buffer;
  width: number;
  height: number;
  channels: 1;
}

/**
 * Mask of the people in a photo: 255 = person, 0 = background, soft values
 * along hair and edges; the size of `image`. The model is trained on people
 * (selfies, portraits, half-body shots): on photos without a person it marks
 * little or, for a dominant object, parts of that object.
 * @throws EngineError `unsupported-input` for a malformed image, `processing` when the model fails.
 */
export async function segmentPerson(image: VisionImage): Promise<Mask> {
  checkImage(image, 'segmentPerson image');
  const work = fitInside(image.width, image.height, SEGMENT_WORK_SIDE);
  const same = work.width === image.width && work.height === image.height;
  // sharp runs these on its own threads while the event loop stays free.
  const [model, guide, full] = await Promise.all([
    pixels(rgb(image).resize(SEGMENT_MODEL_SIDE, SEGMENT_MODEL_SIDE, { fit: 'fill' }), 3),
    pixels(grey(image, same ? undefined : work), 1),
    same ? undefined : pixels(grey(image, undefined), 1),
  ]);
  const transfer = [model.data, guide.data, ...(full ? [full.data] : [])];
  const result = await visionPool().run({ kind: 'segment', model, guide, ...(full ? { full } : {}) }, transfer);
  if (result.kind !== 'segment') throw new EngineError('processing', 'internal: vision worker answered a segment request with a faces result');
  const { mask } = result;
  return { data: Buffer.from(mask.data), width: mask.width, height: mask.height, channels: 1 };
}

function grey(image: VisionImage, size: { width: number; height: number } | undefined) {
  let s = image.channels === 1 ? pipeline(image) : rgb(image).greyscale();
  if (size) s = s.resize(size.width, size.height, { fit: 'fill' });
  // A one-channel result, whatever sharp's colourspace bookkeeping (see recipes: resize can give three).
  return s.extractChannel(0);
}
