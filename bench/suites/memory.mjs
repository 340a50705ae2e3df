/**
 * Memory: peak RSS of a client process uploading a large file through the
 * hosted flow (ticket → pre-signed PUT → /pfc → poll), at two sizes, so a
 * figure that grows with the file shows. The file is sparse: an MP4 header
 * and then a hole, so it costs no disk space on the client side and reads
 * at memory speed (the emulator still receives and stores every byte).
 *
 * Side by side: a script that reads the whole file into memory and PUTs the
 * buffer (only at the small size: at 2 GB it needs 2 GB of RAM).
 *
 * Then memory with the number of files left out: the live heap a finished
 * streamed plan holds after planning a folder of few and of many sidecars
 * (files that are no photo, each left out), in one run: its left-out paths
 * are counted and the first 1,000 kept, so the heap should not grow with them.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { spawnBenchEmulator } from '../lib/emulator.mjs';
import { BENCH_DIR } from '../lib/paths.mjs';
import { runNode } from '../lib/proc.mjs';
import { fmtBytes } from '../lib/stats.mjs';
import { sparseMp4 } from '../lib/sparse.mjs';

const KEY = 'bench-memory-key';
const CLIENT = path.join(BENCH_DIR, 'clients', 'memory-client.mjs');
const LEFT_OUT_CLIENT = path.join(BENCH_DIR, 'clients', 'left-out-client.mjs');
/** Heap a plan may hold per left-out path beyond the kept ones (an array of every path held ~150 bytes a path). */
const LEFT_OUT_GOAL_BYTES = 10;
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

/** A folder of `n` sidecars: every file left out as no photo or video. */
function sidecarFolder(dir, n) {
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < n; i++) writeFileSync(path.join(dir, `IMG_${String(i).padStart(6, '0')}.xmp`), '<x:xmpmeta xmlns:x="adobe:ns:meta/"/>');
  return dir;
}

/** The live heap a finished plan of `folder` holds, in a process of its own (`clients/left-out-client.mjs`). */
function planHeap(folder, log) {
  const r = spawnSync(process.execPath, ['--expose-gc', LEFT_OUT_CLIENT, folder], { encoding: 'utf8', timeout: 5 * 60_000 });
  if (r.status !== 0) throw new Error(`left-out client exited ${r.status ?? r.signal}: ${r.stderr.slice(-2000)}`);
  const out = JSON.parse(r.stdout.trim().split('\n').at(-1));
  log(`${out.leftOut} left out (${out.reported} reported, ${out.kept} kept): plan holds ${fmtBytes(out.heapBytes)} of heap`);
  return out;
}

/** Few and many left-out files, both sides in this run: the heap's growth per left-out path. */
function leftOutHeap({ quick, dir, log }) {
  const [few, many] = quick ? [2000, 6000] : [2000, 20_000];
  const [f, m] = [few, many].map((n) => planHeap(sidecarFolder(path.join(dir, `left-out-${n}`), n), log));
  const perPath = (m.heapBytes - f.heapBytes) / (many - few);
  return {
    figures: [
      { name: `plan's heap, ${many.toLocaleString('en')} files left out`, value: +(m.heapBytes / MB).toFixed(2), unit: 'MB', note: `${m.kept} paths kept` },
      { name: `plan's heap, ${few.toLocaleString('en')} files left out`, value: +(f.heapBytes / MB).toFixed(2), unit: 'MB', note: `${f.kept} paths kept` },
      { name: `growth per left-out path, ${few.toLocaleString('en')} → ${many.toLocaleString('en')}`, value: Math.round(perPath), unit: 'B', goal: `flat (≤ ${LEFT_OUT_GOAL_BYTES} B)`, ok: perPath <= LEFT_OUT_GOAL_BYTES },
    ],
    data: { few: f, many: m },
  };
}

/** Also on its own: the suite's uploads take minutes. */
export { leftOutHeap };

export default {
  name: 'memory',
  area: 'Memory',
  title: 'Memory: peak RSS of a client uploading a large file; a plan\'s heap with the files left out',
  async run({ quick, dir, log }) {
    const [small, large] = quick ? [100 * MB, 500 * MB] : [200 * MB, 2000 * MB];
    // Before the emulator starts: its child shares nothing with these, and the sidecars are written meanwhile.
    const leftOut = leftOutHeap({ quick, dir, log });
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
          ...leftOut.figures,
        ],
        data: { rows, naive, leftOut: leftOut.data },
        notes: [
          'Client in its own process; peak RSS from the kernel (getrusage maxrss) at exit. The file is sparse (MP4 header + hole); the emulator stores every byte. The emulator has no video correction, so each job ends REJECTED (501) after the upload.',
          "Left-out paths: `@pfc/batch`'s streamed plan of a folder of sidecars (each left out as no photo), in a process of its own with `--expose-gc`: the live heap after planning (every path reported as found, as a run does) less the heap before it, the plan still referenced.",
        ],
      };
    } finally {
      await emu.stop();
    }
  },
};
