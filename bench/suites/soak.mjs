/**
 * Reliability: the fault soak through the built `pfc` CLI (bench/lib/soak.mjs),
 * 1,000 files (60 with --quick), then the secrets check of everything it wrote.
 */
import { runSoak } from '../lib/soak.mjs';

export default {
  name: 'soak',
  area: 'Faults',
  title: 'Faults: soak through the pfc CLI, rerun, secrets',
  async run({ quick, dir, log, onSecret }) {
    const r = await runSoak({ dir, count: quick ? 60 : 1000, seed: 1, log, onSecret });
    const zero = (name, v, note) => ({ name, value: v, goal: '0', ok: v === 0, ...(note ? { note } : {}) });
    const i = r.injected;
    return {
      figures: [
        { name: 'files corrected in the faulty run', value: r.run1.corrected, note: `of ${r.count}; injected: ${i['503']} × 503, ${i['429']} × 429 + Retry-After, ${i.drop} dropped connections, ${i.jobFail} FAILED jobs, ${i.jobHang} never-finishing jobs` },
        { name: 'files failed (with reason)', value: r.run1.failed, note: Object.entries(r.run1.failureReasons).map(([why, n]) => `${n} × ${why}`).join('; ') || 'none' },
        zero('duplicates', r.duplicates),
        zero('two runs on one folder at once: duplicate jobs', r.twin.duplicateJobs, `${r.twin.files} files, ${r.twin.jobs} jobs (emulator stats), exit codes ${r.twin.exitCodes.join(' and ')}; the second run waits for the first's lock (--wait)`),
        zero('partial or undecodable outputs', r.partials + r.badOutputs.length, r.badOutputs.slice(0, 3).join('; ')),
        zero('unexpected files in the output folder', r.unexpectedFiles.length, r.unexpectedFiles.slice(0, 3).join('; ')),
        zero('originals changed', r.originalsChanged),
        { name: 'rerun redoes only the failed files', value: r.rerun.redoesOnlyFailed ? 'yes' : 'no', goal: 'yes', ok: r.rerun.redoesOnlyFailed, note: `rerun: ${r.rerun.corrected} corrected, ${r.rerun.upToDate} up to date, ${r.rerun.failed} failed, ${r.rerun.jobs} jobs sent` },
        zero('API key found in logs, outputs, report or manifest', r.secrets.hits.length, `searched ${r.secrets.searched.texts} outputs/logs and ${r.secrets.searched.files} files (${(r.secrets.searched.bytes / 1e6).toFixed(0)} MB)${r.secrets.hits.length ? `: ${r.secrets.hits.join(', ')}` : ''}`),
        {
          name: 'never-finishing jobs',
          value: r.hangsInjected ? `${r.run1.timedOut} of ${i.jobHang ?? 0} failed at the per-job limit (${r.jobTimeout})` : 'not injected',
          goal: 'handled',
          // A hung job may also be abandoned before the limit (its file redone after dropped status polls), so at most one failure per injected hang; none may survive the rerun.
          ok: r.hangsInjected ? r.run1.timedOut <= (i.jobHang ?? 0) && r.rerun.failed === 0 && !r.run1.stoppedBecause : false,
          note: r.hangsInjected ? 'reported failed (JobTimeoutError) while the rest of the batch goes on; the rerun redoes them' : 'pfc correct --help lists no --job-timeout, so a job that never finishes would hold its file for the 30-minute default',
        },
      ],
      data: r,
      notes: ['Emulator: --processing-ms 50 --workers 64 (never-finishing jobs hold a worker), faults on every route (seed 1); pfc correct --concurrency 8 --backend web; rerun without faults.'],
    };
  },
};
