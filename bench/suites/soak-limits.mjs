/**
 * Reliability under account limits: the fault soak (bench/lib/soak.mjs)
 * against an emulator that also limits the key to 2 jobs in progress and
 * 15 requests per second, answered 429 + Retry-After, while `pfc` runs
 * --concurrency 8: the client must wait the limits out and lose nothing.
 */
import { runSoak } from '../lib/soak.mjs';

const LIMITS = { jobsInProgress: 2, requestsPerSecond: 15 };

export default {
  name: 'soak-limits',
  area: 'Faults',
  title: 'Faults under account limits: soak with a per-key job and request limit',
  async run({ quick, dir, log, onSecret }) {
    const r = await runSoak({ dir, count: quick ? 60 : 300, seed: 2, accountLimits: LIMITS, log, onSecret });
    const zero = (name, v, note) => ({ name, value: v, goal: '0', ok: v === 0, ...(note ? { note } : {}) });
    const l = r.accountLimited ?? { requests: 0, jobs: 0 };
    return {
      figures: [
        { name: 'answers refused by the account limits (429 + Retry-After)', value: l.requests + l.jobs, note: `${l.jobs} over ${LIMITS.jobsInProgress} jobs in progress, ${l.requests} over ${LIMITS.requestsPerSecond} requests/s` },
        { name: 'files corrected in the faulty, limited run', value: r.run1.corrected, note: `of ${r.count}; failed ${r.run1.failed} (${Object.entries(r.run1.failureReasons).map(([why, n]) => `${n} × ${why}`).join('; ') || 'none'})` },
        zero('duplicates', r.duplicates),
        zero('partial or undecodable outputs', r.partials + r.badOutputs.length),
        zero('originals changed', r.originalsChanged),
        { name: 'rerun redoes only the failed files', value: r.rerun.redoesOnlyFailed ? 'yes' : 'no', goal: 'yes', ok: r.rerun.redoesOnlyFailed },
      ],
      data: r,
      notes: [`Emulator as in the soak (faults seed 2) plus --account-jobs ${LIMITS.jobsInProgress} --account-rps ${LIMITS.requestsPerSecond}; pfc correct --concurrency 8 --backend web.`],
    };
  },
};
