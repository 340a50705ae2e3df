/**
 * The heap of a long run kept near its live size. A batch's per-file garbage
 * (requests, responses, events) lives as long as a job and reaches V8's old
 * generation; by default V8 then lets that generation grow up to ~4× the live
 * heap before a full collection, so the resident size grew with the live
 * heap's size (the manifest index, ~300 B a file) several times over: 338 MB
 * at 100,000 files. A growth factor of 1.5 (V8's `--heap-growing-percent`,
 * see `node --v8-options`) collects once the old generation is half as large
 * again as what survived the last full collection: at 10,000 files the peak
 * went from 187 to 153 MB, each full collection still a few tens of ms.
 */
import { setFlagsFromString } from 'node:v8';

/** Old generation allowed to grow by this share over the live heap before a full collection. */
export const HEAP_GROWING_PERCENT = 50;

/**
 * Sets the growth factor for this process (read by V8 at each full
 * collection, so setting it after start-up takes effect from the next one).
 * Only the `correct` command asks for it: it is the one that runs long.
 */
export function keepHeapNearLive(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
