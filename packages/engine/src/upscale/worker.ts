/**
 * Entry of an upscale worker thread (built to `dist/upscale-worker.js`):
 * ESRGAN-slim (RDN, from @upscalerjs/esrgan-slim, MIT) on TensorFlow.js'
 * WASM backend, models read from disk once per worker. One tile at a time.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { workerData } from 'node:worker_threads';
import * as tf from '@tensorflow/tfjs-core';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { loadLayersModel, type LayersModel } from '@tensorflow/tfjs-layers';
import { serveTasks } from '@pfc/node-io';
import { tfjsModelFromDisk } from '../workers/tfjs-model';
import type { UpscaleResult, UpscaleTask, UpscaleWorkerConfig } from './protocol';

const config = workerData as UpscaleWorkerConfig;
const require = createRequire(import.meta.url);

let backend: Promise<void> | undefined;
const models = new Map<number, Promise<LayersModel>>();

function ready(): Promise<void> {
  backend ??= (async () => {
    // The .wasm files ship in the npm package; nothing is fetched.
    setWasmPaths(`${dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'))}/`);
    if (!(await tf.setBackend('wasm'))) throw new Error('the TensorFlow.js WASM backend did not start');
    await tf.ready();
  })();
  return backend;
}

function model(factor: 2 | 4): Promise<LayersModel> {
  let m = models.get(factor);
  if (!m) {
    m = (async () => {
      await ready();
      return loadLayersModel(tfjsModelFromDisk(join(config.modelsDir, `x${factor}`, 'model.json')));
    })();
    m.catch(() => models.delete(factor));
    models.set(factor, m);
  }
  return m;
}

async function upscale(task: UpscaleTask): Promise<UpscaleResult> {
  const net = await model(task.factor);
  const input = new Uint8Array(task.data);
  const out = tf.tidy(() => {
    const x = tf.tensor4d(Float32Array.from(input), [1, task.height, task.width, 3]);
    // The model works on 0..255 and can overshoot a little.
    return tf.cast(tf.round(tf.clipByValue(net.predict(x) as tf.Tensor4D, 0, 255)), 'int32');
  });
  try {
    const values = (await out.data()) as Int32Array;
    return { data: Uint8Array.from(values).buffer, width: task.width * task.factor, height: task.height * task.factor };
  } finally {
    out.dispose();
  }
}

serveTasks<UpscaleTask, UpscaleResult>(
  async (task) => {
    try {
      return await upscale(task);
    } catch (e) {
      throw new Error(`upscaling failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  },
  (result) => [result.data],
);
