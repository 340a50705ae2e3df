/**
 * Entry of a vision worker thread (built to `dist/vision-worker.js`). It
 * answers one request at a time: the pool never sends a second before the
 * first is answered.
 */
import { workerData } from 'node:worker_threads';
import type { Tensor } from '@tensorflow/tfjs-core';
import { toFaceRecords } from '../faces/records';
import { refineMask } from '../segment/refine';
import { serveTasks } from '@pfc/node-io';
import type { FacesTask, SegmentTask, VisionResult, VisionTask, WorkerConfig } from './protocol';
import { getFaceDetector, getHuman, getSelfieModel } from './runtime';

const config = workerData as WorkerConfig;

async function faces(task: FacesTask): Promise<VisionResult> {
  const human = await getFaceDetector();
  const { data, width, height } = task.image;
  // float32 straight from the bytes: Human casts an int32 tensor to float32 before anything else
  // (image.ts, `process`), so the values are the same without an Int32Array and a cast of the image.
  const input = human.tf.tensor3d(new Uint8Array(data), [height, width, 3], 'float32');
  try {
    // Per call, both ways: Human keeps a call's settings for the calls after it.
    const result = await human.detect(input, { face: { iris: { enabled: !task.boxesOnly }, emotion: { enabled: !task.boxesOnly } } });
    if (result.error) throw new Error(`face detection failed: ${result.error}`);
    return { kind: 'faces', faces: toFaceRecords(result.face, task.scale, task.width, task.height) };
  } finally {
    input.dispose();
  }
}

async function segment(task: SegmentTask): Promise<VisionResult> {
  const [{ tf }, model] = await Promise.all([getHuman(), getSelfieModel(config.modelsDir)]);
  const { width: mw, height: mh } = task.model;
  const pixels = new Uint8Array(task.model.data);
  const input = tf.tensor4d(Float32Array.from(pixels, (v) => v / 255), [1, mh, mw, 3]);
  let output: Tensor | undefined;
  try {
    output = model.execute(input) as Tensor;
    const prob = (await output.data()) as Float32Array;
    const grey = (p: NonNullable<SegmentTask['full']>) => ({ data: new Uint8Array(p.data), width: p.width, height: p.height });
    const guide = grey(task.guide);
    const mask = refineMask(prob, mw, mh, guide, task.full ? grey(task.full) : guide);
    const size = task.full ?? task.guide;
    return { kind: 'segment', mask: { data: mask.buffer as ArrayBuffer, width: size.width, height: size.height, channels: 1 } };
  } finally {
    input.dispose();
    output?.dispose();
  }
}

serveTasks<VisionTask, VisionResult>(
  (task) => (task.kind === 'faces' ? faces(task) : segment(task)),
  (result) => (result.kind === 'segment' ? [result.mask.data] : []),
);
