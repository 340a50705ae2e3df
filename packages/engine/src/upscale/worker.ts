/**
 * Entry of an upscale worker thread (built to `dist/upscale-worker.js`):
 * ESRGAN-slim (RDN, from @upscalerjs/esrgan-slim, MIT) on TensorFlow.js'
 * WASM backend, models read from disk once per worker. One tile at a time.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import * as tf from '@tensorflow/tfjs-core';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { loadLayersModel, type LayersModel } from '@tensorflow/tfjs-layers';
import type { UpscaleReply, UpscaleRequest, UpscaleWorkerConfig } from './protocol';

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
      const dir = join(config.modelsDir, `x${factor}`);
      const json = JSON.parse(await readFile(join(dir, 'model.json'), 'utf8')) as {
        modelTopology: object;
        weightsManifest: { paths: string[]; weights: tf.io.WeightsManifestEntry[] }[];
      };
      const parts = await Promise.all(json.weightsManifest.flatMap((g) => g.paths).map((p) => readFile(join(dir, p))));
      const w = Buffer.concat(parts);
      const weightData = w.buffer.slice(w.byteOffset, w.byteOffset + w.byteLength) as ArrayBuffer;
      return loadLayersModel(tf.io.fromMemory({ modelTopology: json.modelTopology, weightSpecs: json.weightsManifest.flatMap((g) => g.weights), weightData }));
    })();
    m.catch(() => models.delete(factor));
    models.set(factor, m);
  }
  return m;
}

async function upscale(req: UpscaleRequest): Promise<UpscaleReply> {
  const net = await model(req.factor);
  const input = new Uint8Array(req.data);
  const out = tf.tidy(() => {
    const x = tf.tensor4d(Float32Array.from(input), [1, req.height, req.width, 3]);
    // The model works on 0..255 and can overshoot a little.
    return tf.cast(tf.round(tf.clipByValue(net.predict(x) as tf.Tensor4D, 0, 255)), 'int32');
  });
  try {
    const values = (await out.data()) as Int32Array;
    const bytes = Uint8Array.from(values);
    return { id: req.id, ok: true, data: bytes.buffer, width: req.width * req.factor, height: req.height * req.factor };
  } finally {
    out.dispose();
  }
}

parentPort?.on('message', (req: UpscaleRequest) => {
  upscale(req).then(
    (reply) => parentPort?.postMessage(reply, reply.ok ? [reply.data] : []),
    (err: unknown) => parentPort?.postMessage({ id: req.id, ok: false, error: err instanceof Error ? err.message : String(err) } satisfies UpscaleReply),
  );
});
