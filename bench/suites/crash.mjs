/**
 * Crash: kill -9 of `pfc correct` at random moments, ten times, rerunning
 * each time (bench/lib/crash.mjs); the final output must equal an
 * uninterrupted run's, with no temporary files left.
 */
import { runCrash } from '../lib/crash.mjs';

export default {
  name: 'crash',
  area: 'Crash',
  title: 'Crash: kill -9 at random moments, rerun, compare with an uninterrupted run',
  async run({ quick, dir, log }) {
    const r = await runCrash({ dir, count: quick ? 30 : 120, kills: quick ? 2 : 10, seed: 1, log });
    return {
      figures: [
        { name: 'kills (SIGKILL) during the batch', value: r.kills, goal: quick ? undefined : '10', ok: quick ? undefined : r.kills >= 10, note: `in ${r.runs.length} runs (a run may finish before its moment); moments: ${r.runs.map((x) => x.moment).join('; ')}` },
        { name: 'final output equals the uninterrupted run', value: r.equal ? 'yes' : 'no', goal: 'yes', ok: r.equal, note: `${r.byteIdentical} of ${r.count} files byte-identical${r.different.length ? `; different: ${r.different.slice(0, 3).join(', ')}` : ''}${r.missing.length ? `; missing: ${r.missing.slice(0, 3).join(', ')}` : ''}${r.extra.length ? `; extra: ${r.extra.slice(0, 3).join(', ')}` : ''}` },
        { name: 'temporary files left', value: r.temporary.length, goal: '0', ok: r.temporary.length === 0, note: `${r.temporaryRemoved} left by killed runs were removed by the next run` },
        { name: 'originals changed', value: r.changedOriginals, goal: '0', ok: r.changedOriginals === 0 },
        { name: 'final run', value: `${r.final.corrected} corrected, ${r.final.upToDate} up to date, ${r.final.failed} failed`, note: `exit ${r.final.exitCode}` },
      ],
      data: r,
      notes: [`${r.count} one-megapixel JPEGs in 3 folders; emulator --processing-ms 100 --workers 4; pfc correct --concurrency 4 --backend web. Kill moments seeded (seed 1): one in five during start-up and planning, the others 0–150 ms after a random finished file, with other files in flight.`],
    };
  },
};
