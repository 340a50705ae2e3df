/**
 * Reads a TensorFlow.js model folder (`model.json` + weight shards) from
 * disk into memory, for `loadGraphModel` / `loadLayersModel`: no URL, no
 * fetch, so nothing can be downloaded. Types only from tfjs-core, so a
 * worker that uses another bundled copy of tfjs (Human's) can use it too.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { io } from '@tensorflow/tfjs-core';

interface ModelJson {
  modelTopology: object;
  weightsManifest: { paths: string[]; weights: io.WeightsManifestEntry[] }[];
}

/**
 * The model at `jsonPath` as `{ modelTopology, weightSpecs, weightData }`;
 * shard paths are relative to the JSON file's folder and concatenated in
 * manifest order.
 */
export async function readTfjsModel(jsonPath: string): Promise<io.ModelArtifacts> {
  const dir = dirname(jsonPath);
  const json = JSON.parse(await readFile(jsonPath, 'utf8')) as ModelJson;
  const groups = json.weightsManifest;
  const shards = await Promise.all(groups.flatMap((g) => g.paths).map((p) => readFile(join(dir, p))));
  const weights = Buffer.concat(shards);
  return {
    modelTopology: json.modelTopology,
    weightSpecs: groups.flatMap((g) => g.weights),
    // A fresh ArrayBuffer of exactly the weights (a Buffer may be a view into a larger pool).
    weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength) as ArrayBuffer,
  };
}

/** An in-memory I/O handler for `loadGraphModel` / `loadLayersModel` that reads the model folder when loaded. */
export function tfjsModelFromDisk(jsonPath: string): io.IOHandler {
  return { load: () => readTfjsModel(jsonPath) };
}
