/**
 * Preloaded with `node --import` into a child process whose memory we
 * measure: on exit it writes `{ maxRssBytes, cpuMs }` to the file named by
 * PFC_BENCH_RSS_FILE. `resourceUsage().maxRSS` is the kernel's peak resident
 * set (KiB), so no sampling can miss a short spike.
 */
import { writeFileSync } from 'node:fs';

const file = process.env.PFC_BENCH_RSS_FILE;
if (file) {
  process.on('exit', () => {
    const u = process.resourceUsage();
    writeFileSync(file, JSON.stringify({ maxRssBytes: u.maxRSS * 1024, cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000 }));
  });
}
