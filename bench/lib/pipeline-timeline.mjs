/**
 * Where a batch's workers idled, from the service's own job records: each
 * job's PROCESSING span (its end `updatedAt`, its start `timeTaken` earlier)
 * against the command's wall time. The workers' idle time is split into the
 * phases of a batch:
 *
 * - `startup`: process start → first job starts (Node, planning, the first upload, its start request);
 * - `rampUp`: first job start → every worker busy for the first time (the first wave's uploads and starts);
 * - `notice`: every worker busy → the last job starts (a job's end noticed late, the next job's start request);
 * - `tail`: last job start → last job end (the last wave: workers idle while the slowest jobs finish);
 * - `exit`: last job end → process exit (the last download and write, the summary, Node's exit).
 *
 * Each is a share of `workers × wall`, the same denominator as the ratio to
 * the limit (work ÷ (workers × wall) = files/s ÷ (workers ÷ mean job time)),
 * so `ratio + Σ shares = 1`. Used by the pipeline suite and by the model
 * (`pipeline-model.mjs`), which feeds it simulated spans.
 */

/**
 * @param {{ startMs: number, endMs: number }[]} jobs PROCESSING spans (any common clock, ms)
 * @param {number} t0 process start on that clock
 * @param {number} t1 process exit on that clock
 * @param {number} workers the service's workers
 * @returns {{ ratio: number, startup: number, rampUp: number, notice: number, tail: number, exit: number, wallMs: number, workMs: number }}
 */
export function idleSplit(jobs, t0, t1, workers) {
  const events = [];
  for (const j of jobs) events.push([j.startMs, +1], [j.endMs, -1]);
  // Ends before starts at the same instant: a worker handed from one job to the next is not counted twice.
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const firstStart = Math.min(...jobs.map((j) => j.startMs));
  const lastStart = Math.max(...jobs.map((j) => j.startMs));
  const lastEnd = Math.max(...jobs.map((j) => j.endMs));
  let full = lastStart;
  let active = 0;
  for (const [t, d] of events) {
    active += d;
    if (active >= workers) {
      full = Math.min(t, lastStart);
      break;
    }
  }
  /** Idle worker-ms between a and b (a ≤ b): each stretch of constant active count, clipped to [a, b]. */
  const idle = (a, b) => {
    let sum = 0;
    let n = 0;
    let prev = -Infinity;
    for (const [t, d] of [...events, [Infinity, 0]]) {
      const from = Math.max(prev, a);
      const to = Math.min(t, b);
      if (to > from) sum += Math.max(0, workers - n) * (to - from);
      n += d;
      prev = t;
    }
    return sum;
  };
  const wallMs = t1 - t0;
  const total = workers * wallMs;
  const workMs = jobs.reduce((a, j) => a + (j.endMs - j.startMs), 0);
  return {
    ratio: workMs / total,
    startup: (workers * (firstStart - t0)) / total,
    rampUp: idle(firstStart, full) / total,
    notice: idle(full, lastStart) / total,
    tail: idle(lastStart, lastEnd) / total,
    exit: (workers * (t1 - lastEnd)) / total,
    wallMs,
    workMs,
  };
}

/** The split as one line: "startup 0.030, ramp-up 0.010, …". */
export function formatSplit(s) {
  return `startup ${s.startup.toFixed(3)}, ramp-up ${s.rampUp.toFixed(3)}, notice ${s.notice.toFixed(3)}, tail ${s.tail.toFixed(3)}, exit ${s.exit.toFixed(3)}`;
}

/** PROCESSING spans (epoch ms) from the emulator's job records (`updatedAt` is the end, `timeTaken` s before it the start). */
export function spansOf(records) {
  return records
    .filter((r) => r.status === 'COMPLETED' && typeof r.timeTaken === 'number')
    .map((r) => {
      const endMs = Date.parse(r.updatedAt);
      return { startMs: endMs - r.timeTaken * 1000, endMs };
    });
}
