#!/usr/bin/env node
/**
 * Plans a folder with `@pfc/batch`'s streamed planner, as a run takes it (every left-out path handed on as
 * found, every file taken), in its own process, and prints the live heap a finished plan holds (run with
 * `--expose-gc`): what its left-out paths cost once planning is done.
 *
 * Usage: node --expose-gc left-out-client.mjs FOLDER
 * Prints one JSON line: { leftOut, kept, files, heapBytes }.
 */
import { planStream } from '@pfc/batch';

const folder = process.argv[2];
/** Plans measured together. */
const PLANS = 5;
const live = () => {
  globalThis.gc();
  return process.memoryUsage().heapUsed;
};

/** The folder planned to its end, as `runBatch` takes it: each left-out path reported as found (here counted), not held for a run. */
async function planned() {
  const plan = await planStream({ inputs: [folder], output: { kind: 'mirror', dir: `${folder}-out` }, backend: 'web' });
  let reported = 0;
  plan.leftOut.reportTo(() => reported++);
  let files = 0;
  for await (const _ of plan.files) files++;
  return { plan, reported, files };
}

// Once before measuring: what the first planning loads and compiles is no part of a plan.
await planned();
// Several plans kept alive at once: what one holds stands out of the heap's noise (±0.2 MB).
const before = live();
const runs = [];
for (let k = 0; k < PLANS; k++) runs.push(await planned());
const heapBytes = Math.round((live() - before) / PLANS);
const [{ plan, reported, files }] = runs;
console.log(JSON.stringify({ leftOut: plan.leftOut.counts.total, reported, kept: plan.leftOut.kept.length, files, heapBytes }));
