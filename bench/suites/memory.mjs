/**
 * Memory: peak RSS of a client process uploading a large file through the
 * hosted flow (ticket → pre-signed PUT → /pfc → poll), at two sizes, so a
 * figure that grows with the file shows. The file is sparse: an MP4 header
 * and then a hole, so it costs no disk space on the client side and reads
 * at memory speed (the emulator still receives and stores every byte).
 *
 * Side by side: a script that reads the whole file into memory and PUTs the
 * buffer (only at the small size: at 2 GB it needs 2 GB of RAM).
 */
import path from 'node:path';
import { spawnBenchEmulator } from '../lib/emulator.mjs';
import { BENCH_DIR } from '../lib/paths.mjs';
import { runNode } from '../lib/proc.mjs';
import { fmtBytes } from '../lib/stats.mjs';
import { sparseMp4 } from '../lib/sparse.mjs';

const KEY = 'bench-memory-key';
const CLIENT = path.join(BENCH_DIR, 'clients', 'memory-client.mjs');
const MB = 1e6;
const GOAL_BYTES = 150 * MB;
/** "Flat": the large upload's peak may exceed the small one's by this much at most. */
const FLAT_BYTES = 20 * MB;

async function upload(emu, file, mode, log) {
  const r = await runNode(CLIENT, ['--base', emu.web, '--key', KEY, '--file', file, '--mode', mode], { rss: true, timeoutMs: 15 * 60_000 });
  if (r.code !== 0) throw new Error(`memory client (${mode}) exited ${r.code ?? r.signal}: ${r.stderr.slice(-2000)}`);
  const out = JSON.parse(r.stdout.trim().split('\n').at(-1));
  const row = { ...out, maxRssBytes: r.maxRssBytes, wallMs: Math.round(r.ms) };
  log(`${mode} ${fmtBytes(out.bytes)}: peak RSS ${fmtBytes(r.maxRssBytes)}, upload ${(out.uploadMs / 1000).toFixed(1)} s (${(out.bytes / MB / (out.uploadMs / 1000)).toFixed(0)} MB/s), ${out.outcome}`);
  return row;
}

export default {
  name: 'memory',
  area: 'Memory',
  title: 'Memory: peak RSS of a client uploading a large file',
  async run({ quick, dir, log }) {
    const [small, large] = quick ? [100 * MB, 500 * MB] : [200 * MB, 2000 * MB];
    // Without the engine the emulator stores the video and answers 501: the upload is what is measured.
    const emu = await spawnBenchEmulator({ apiKeys: [KEY], dataDir: path.join(dir, 'emulator'), engine: false });
    try {
      const rows = [];
      for (const bytes of [small, large]) {
        const file = path.join(dir, `big-${bytes}.mp4`);
        sparseMp4(file, bytes);
        rows.push(await upload(emu, file, 'core', log));
      }
      const naive = await upload(emu, path.join(dir, `big-${small}.mp4`), 'naive', log);
      const [s, l] = rows;
      const growth = l.maxRssBytes - s.maxRssBytes;
      return {
        figures: [
          { name: `peak RSS, ${fmtBytes(large)} upload (@pfc/core)`, value: +(l.maxRssBytes / MB).toFixed(1), unit: 'MB', goal: '≤ 150 MB', ok: l.maxRssBytes <= GOAL_BYTES, note: `${(l.bytes / MB / (l.uploadMs / 1000)).toFixed(0)} MB/s; job ${l.outcome}` },
          { name: `peak RSS, ${fmtBytes(small)} upload (@pfc/core)`, value: +(s.maxRssBytes / MB).toFixed(1), unit: 'MB', goal: '≤ 150 MB', ok: s.maxRssBytes <= GOAL_BYTES },
          { name: `growth ${fmtBytes(small)} → ${fmtBytes(large)}`, value: +(growth / MB).toFixed(1), unit: 'MB', goal: `flat (≤ ${FLAT_BYTES / MB} MB)`, ok: growth <= FLAT_BYTES },
          { name: `peak RSS, ${fmtBytes(small)} upload (read whole file, PUT buffer)`, value: +(naive.maxRssBytes / MB).toFixed(1), unit: 'MB', note: `${(naive.maxRssBytes / s.maxRssBytes).toFixed(1)}× the streamed upload` },
        ],
        data: { rows, naive },
        notes: ['Client in its own process; peak RSS from the kernel (getrusage maxrss) at exit. The file is sparse (MP4 header + hole); the emulator stores every byte. The emulator has no video correction, so each job ends REJECTED (501) after the upload.'],
      };
    } finally {
      await emu.stop();
    }
  },
};
