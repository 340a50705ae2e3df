/**
 * Preloaded with `node --import` into a child process whose memory we
 * measure: on exit it writes `{ maxRssBytes, cpuMs }` to the file named by
 * PFC_BENCH_RSS_FILE. The peak is the kernel's high-water mark of this
 * process's own resident set (`VmHWM` in /proc/self/status), so no sampling
 * can miss a short spike. Not getrusage's `maxRSS`: Linux carries it over
 * from the parent across fork and exec, so a child of a runner holding 300 MB
 * reported 290 MB while using 40. Where /proc is missing, `maxRSS` it is.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const file = process.env.PFC_BENCH_RSS_FILE;
if (file) {
  process.on('exit', () => {
    const u = process.resourceUsage();
    writeFileSync(file, JSON.stringify({ maxRssBytes: ownPeakBytes() ?? u.maxRSS * 1024, cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000 }));
  });
}

/** VmHWM, in bytes; undefined without /proc. */
function ownPeakBytes() {
  try {
    const kib = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    return kib === undefined ? undefined : Number(kib) * 1024;
  } catch {
    return undefined;
  }
}
