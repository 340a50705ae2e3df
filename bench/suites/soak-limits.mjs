/**
 * Reliability under account limits: the fault soak (bench/lib/soak.mjs)
 * against an emulator that also limits the key to 2 jobs in progress and
 * 15 requests per second, answered 429 + Retry-After, while `pfc` runs
 * --concurrency 8: the client must wait the limits out and lose nothing.
 */
import { runSoak } from '../lib/soak.mjs';

const LIMITS = { jobsInProgress: 2, requestsPerSecond: 15 };
/** The emulator's job time limit in this run: a stuck job ends FAILED after 5 s. */
const SERVICE_JOB_TIMEOUT_MS = 5_000;

export default {
  name: 'soak-limits',
  area: 'Faults',
  title: 'Faults under account limits: soak with a per-key job and request limit',
  async run({ quick, dir, log, onSecret }) {
    // Never-finishing jobs count against the account's jobs in progress until the service's
    // job time limit ends them FAILED (SERVICE_JOB_TIMEOUT_MS, shorter than the client's own
    // 10 s limit): the client must get past them, not wait for the limit of 2 to come back.
    const r = await runSoak({ dir, count: quick ? 60 : 300, seed: 2, accountLimits: LIMITS, serviceJobTimeoutMs: SERVICE_JOB_TIMEOUT_MS, log, onSecret });
    const zero = (name, v, note) => ({ name, value: v, goal: '0', ok: v === 0, ...(note ? { note } : {}) });
    const l = r.accountLimited ?? { requests: 0, jobs: 0 };
    return {
      figures: [
        { name: 'answers refused by the account limits (429 + Retry-After)', value: l.requests + l.jobs, note: `${l.jobs} over ${LIMITS.jobsInProgress} jobs in progress, ${l.requests} over ${LIMITS.requestsPerSecond} requests/s` },
        { name: 'uploads per file in the faulty, limited run', value: Number((r.run1.uploads / r.count).toFixed(2)), goal: '≈ 1', ok: r.run1.uploads / r.count <= 1.1, note: `${r.run1.uploads} uploads (PUTs) for ${r.count} files; a refused start is made again with the same upload` },
        { name: 'jobs at once (the adaptive limit, start → end)', value: r.run1.limitPath.at(-1) ?? '-', note: `${r.run1.limitPath.length} changes: ${summarisePath(r.run1.limitPath)}` },
        { name: 'files corrected in the faulty, limited run', value: r.run1.corrected, note: `of ${r.count} in ${(r.run1.ms / 1000).toFixed(0)} s; failed ${r.run1.failed} (${Object.entries(r.run1.failureReasons).map(([why, n]) => `${n} × ${why}`).join('; ') || 'none'})` },
        zero('duplicates', r.duplicates),
        zero('partial or undecodable outputs', r.partials + r.badOutputs.length),
        zero('originals changed', r.originalsChanged),
        { name: 'rerun redoes only the failed files', value: r.rerun.redoesOnlyFailed ? 'yes' : 'no', goal: 'yes', ok: r.rerun.redoesOnlyFailed },
      ],
      data: r,
      notes: [`Emulator as in the soak (faults seed 2, never-finishing jobs included: --job-timeout-ms ${SERVICE_JOB_TIMEOUT_MS} ends them FAILED and gives the account's allowance back) plus --account-jobs ${LIMITS.jobsInProgress} --account-rps ${LIMITS.requestsPerSecond}; pfc correct --concurrency 8 --backend web.`],
    };
  },
};

/** The limit's path, shortened: the first 12 changes, then the rest counted by value. */
function summarisePath(path) {
  if (path.length <= 12) return `8 → ${path.join(' → ')}`;
  const rest = {};
  for (const l of path.slice(12)) rest[l] = (rest[l] ?? 0) + 1;
  return `8 → ${path.slice(0, 12).join(' → ')} …, then ${Object.entries(rest).map(([l, n]) => `${n} × ${l}`).join(', ')}`;
}
