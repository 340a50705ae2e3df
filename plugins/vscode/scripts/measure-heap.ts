/**
 * A measurement, not a test: the extension side's JavaScript heap during and
 * after "Correct Images in Folder" on N tiny photos, driven through the fake
 * VS Code (test/fake-vscode.ts) against the engine-less emulator in its own
 * process (bench/clients/emulator-launcher.mjs, `processingMs` 0, 16 workers).
 * The fake's own recordings (log lines, progress, status texts) are not kept,
 * so the heap is the extension's. Also prints the results file's size (what
 * the previous version kept in workspaceState) and the stored record's.
 *
 * Usage: `npm run measure:heap -w pfc-vscode -- 50 10000 100000` (bundled to
 * dist/ with esbuild, run with --expose-gc; the first size warms the modules up).
 */
import { rmSync, statSync } from 'node:fs';
import { LAST_RUN_KEY, type LastRun } from '../src/last-run';
import { activateOnFake, tinyPhotoTree } from '../test/helpers';
// @ts-expect-error -- a plain .mjs module of the benchmarks
import { startEmulatorProcess } from '../../../bench/lib/emulator.mjs';

const MB = 1024 * 1024;
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

async function measure(n: number, web: string): Promise<void> {
  const root = await tinyPhotoTree(n, 'pfc-vscode-heap-', 100);
  try {
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: web, concurrency: 16 } });
    for (const list of [fake.output, fake.traces, fake.progress, fake.statusTexts] as unknown[][]) list.push = () => 0;
    gc();
    const base = process.memoryUsage().heapUsed;
    // Highest heap in use (garbage included), and highest live heap (after a full collection, once a second).
    let peak = base;
    let livePeak = base;
    let ticks = 0;
    const timer = setInterval(() => {
      if (++ticks % 20 === 0) {
        gc();
        livePeak = Math.max(livePeak, process.memoryUsage().heapUsed);
      }
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    }, 50);
    const t0 = Date.now();
    const last = (await fake.run('pfc.correctFolder', fake.uri(root))) as LastRun;
    const seconds = (Date.now() - t0) / 1000;
    clearInterval(timer);
    gc();
    const after = process.memoryUsage().heapUsed;
    const stored = fake.workspaceState.store.get(LAST_RUN_KEY)?.length ?? 0;
    console.log(JSON.stringify({
      files: n, corrected: last.summary.corrected, seconds: +seconds.toFixed(1),
      heapBeforeMB: +(base / MB).toFixed(1), heapPeakMB: +(peak / MB).toFixed(1), liveHeapPeakMB: +(livePeak / MB).toFixed(1), heapAfterRunMB: +(after / MB).toFixed(1),
      retainedMB: +((after - base) / MB).toFixed(2), rssMB: +(process.memoryUsage().rss / MB).toFixed(0),
      workspaceStateBytes: stored, resultsFileMB: +(statSync(last.resultsFile).size / MB).toFixed(1),
    }));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const sizes = process.argv.slice(2).map(Number);
const emu = await startEmulatorProcess({ engine: false, processingMs: 0, workers: 16 });
try {
  for (const n of sizes) await measure(n, emu.web);
} finally {
  await emu.stop();
}
