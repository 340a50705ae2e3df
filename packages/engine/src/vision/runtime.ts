/**
 * Worker-side model runtime: `@vladmandic/human` (face models) and the
 * selfie segmentation graph, both on TensorFlow.js' WASM backend, loaded
 * from files only. Imported by the worker script, never by the main thread.
 *
 * Human's default Node entry needs `@tensorflow/tfjs-node` (which cannot be
 * installed offline), so its WASM build is loaded by path. Human loads
 * models through `fetch`, which in Node does not read `file://` URLs: this
 * worker's `fetch` serves `file://` from disk and refuses everything else,
 * so nothing is ever downloaded.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as tfc from '@tensorflow/tfjs-core';
import type { GraphModel, loadGraphModel } from '@tensorflow/tfjs-converter';
import type { HumanFace } from '../faces/records';
import { tfjsModelFromDisk } from '../workers/tfjs-model';

/** The TensorFlow.js namespace Human bundles (core + converter + WASM backend). */
export type Tf = typeof tfc & { loadGraphModel: typeof loadGraphModel };

export interface HumanLike {
  tf: Tf;
  init(): Promise<void>;
  load(): Promise<void>;
  /** `config` is merged into the instance's settings, which keep it for later calls. */
  detect(input: tfc.Tensor, config?: object): Promise<{ face: HumanFace[]; error?: string | null }>;
}

const require = createRequire(import.meta.url);

/** Face detection settings for still photos: no frame caching, several faces, eyes (iris) and smile (emotion; both skipped per task with `boxesOnly`). */
const humanConfig = (modelBase: string, wasmDir: string) => ({
  backend: 'wasm',
  wasmPath: `${wasmDir}/`,
  wasmPlatformFetch: false,
  modelBasePath: `${modelBase}/`,
  debug: false,
  async: true,
  warmup: 'none',
  cacheModels: false,
  // Stills: never reuse a previous frame's result.
  cacheSensitivity: 0,
  skipAllowed: false,
  filter: { enabled: false },
  gesture: { enabled: false },
  body: { enabled: false },
  hand: { enabled: false },
  object: { enabled: false },
  segmentation: { enabled: false },
  face: {
    enabled: true,
    // rotation: re-align tilted faces before the mesh, so eye positions stay good on tilted heads.
    detector: { rotation: true, maxDetected: 50, skipFrames: 0, skipTime: 0, minConfidence: 0.5, iouThreshold: 0.1, return: false },
    mesh: { enabled: true, keepInvalid: false },
    attention: { enabled: false },
    iris: { enabled: true },
    emotion: { enabled: true, skipFrames: 0, skipTime: 0, minConfidence: 0.1 },
    description: { enabled: false },
    antispoof: { enabled: false },
    liveness: { enabled: false },
  },
});

function offlineFetch(): void {
  const fileFetch = async (input: string | URL | Request): Promise<Response> => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!url.startsWith('file://')) throw new Error(`@pfc/engine loads models from disk only; refused ${url}`);
    return new Response(await readFile(fileURLToPath(url)), { status: 200 });
  };
  globalThis.fetch = fileFetch as typeof fetch;
}

let human: Promise<HumanLike> | undefined;
let facesReady: Promise<void> | undefined;

/** Human with the WASM backend initialised (no models loaded yet). */
export function getHuman(): Promise<HumanLike> {
  human ??= (async () => {
    offlineFetch();
    // The package's "exports" has no "./" keys, so subpaths do not resolve: go from its main file.
    const distDir = dirname(require.resolve('@vladmandic/human'));
    const { Human } = require(join(distDir, 'human.node-wasm.js')) as { Human: new (config: object) => HumanLike };
    const wasmDir = dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'));
    const h = new Human(humanConfig(pathToFileURL(join(distDir, '..', 'models')).href, wasmDir));
    await h.init();
    if (h.tf.getBackend() !== 'wasm') throw new Error(`TensorFlow.js backend is ${h.tf.getBackend()}, expected wasm`);
    return h;
  })();
  // A failed start is not cached: the next task tries again.
  human.catch(() => (human = undefined));
  return human;
}

/** Human with its face models loaded (once per worker). */
export async function getFaceDetector(): Promise<HumanLike> {
  const h = await getHuman();
  facesReady ??= h.load().catch((e: unknown) => {
    facesReady = undefined;
    throw e;
  });
  await facesReady;
  return h;
}

let selfie: Promise<GraphModel> | undefined;

/** The selfie segmentation graph from `modelsDir` (once per worker), read into memory: no URL, no fetch. */
export function getSelfieModel(modelsDir: string): Promise<GraphModel> {
  selfie ??= (async () => {
    const { tf } = await getHuman();
    return tf.loadGraphModel(tfjsModelFromDisk(join(modelsDir, 'selfie.json')));
  })();
  selfie.catch(() => (selfie = undefined));
  return selfie;
}
