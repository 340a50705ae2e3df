/**
 * A worker thread of the engine throughput figure: takes file paths one at a
 * time from the main thread ({ file }), corrects each with the engine's
 * default parameters, answers { done: file, ms, bytes }; { stop: true } ends it.
 */
import { readFile } from 'node:fs/promises';
import { parentPort } from 'node:worker_threads';
import { correctImage } from '@pfc/engine';

parentPort.on('message', async (msg) => {
  if (msg.stop) {
    parentPort.close();
    return;
  }
  const t0 = performance.now();
  const out = await correctImage(await readFile(msg.file), {});
  parentPort.postMessage({ done: msg.file, ms: performance.now() - t0, bytes: out.output.length });
});
parentPort.postMessage({ ready: true });
