/**
 * Entry of a band helper thread (built to `dist/band-worker.js`, see
 * `bands.ts`): runs one band of a WebAssembly pass, with its own instance
 * of the kernels, into memory shared with the main thread.
 */
import { serveTasks } from '@pfc/node-io';
import { runBandTask, type BandTask } from './bands';

serveTasks<BandTask, null>(async (task) => {
  runBandTask(task);
  return null;
});
