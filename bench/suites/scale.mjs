/**
 * Scale: 1,000 / 10,000 / 100,000 files through the built `pfc correct`
 * against the engine-less emulator (`--processing-ms 0`, 16 workers, `-j 16`),
 * each a fresh folder of distinct 96×64 JPEGs 100 to a sub-folder. Per size:
 * the client's peak RSS (goal ≤ 250 MB, flat from 10,000 to 100,000), files/s
 * over the whole command (goal: the largest within 10 % of 1,000's), manifest
 * bytes per file (goal ≤ 300), the rerun with everything up to date (goal
 * ≤ 5 s at the largest size), and the two reruns after every file got a new
 * time (a copy without its times: the first hashes each file once, the next reads none); at the largest size also the time the --report
 * page takes to show its first page of cards in Chromium (goal ≤ 2 s).
 *
 * --quick: 200 / 2,000 files (a smoke check). PFC_BENCH_SCALE_SIZES=1000,10000 picks sizes (empty: none)
 * (the 100,000 run needs about an hour at ~28 files/s and ~1 GB of disk on a
 * 2-core machine). PFC_BENCH_SCALE_RERUN_ONLY=100000 measures only the rerun
 * at that size (and the report's first page, from the rerun's --report): the
 * folder is made up to date without a first run, its outputs copies of the
 * inputs and its manifest written with the settings line a real one-file
 * `pfc correct` wrote, so the rerun finds what a first run would have left.
 * The report alone is also measured at 10,000 and 100,000 files (2,000 with
 * --quick; PFC_BENCH_SCALE_REPORT_SIZES picks, empty for none), written from
 * synthetic results without running jobs: the first page and a folder in
 * Chromium, and the writer's peak RSS (flat in the file count).
 */
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { cleanEnv } from '../lib/cli.mjs';
import { spawnBenchEmulator } from '../lib/emulator.mjs';
import { BENCH_DIR, CLI_BIN, RSS_PRELOAD } from '../lib/paths.mjs';

const REPORT_WRITER = path.join(BENCH_DIR, 'lib', 'report-writer.mjs');

const KEY = 'bench-scale-key';
const WORKERS = 16;
const MB = 1e6;
const GOALS = { rssBytes: 250 * MB, flatBytes: 25 * MB, speedShare: 0.9, manifestBytesPerFile: 300, rerunMs: 5_000, reportMs: 2_000 };
const CHROMIUM = process.env.PFC_CHROMIUM ?? '/usr/bin/chromium';

/**
 * `count` distinct JPEGs under `dir/dNNNN/pNNNNNN.jpg`: one encoded image with
 * a comment segment (JPEG COM, FF FE) holding the file's number, so no two
 * files are equal (the emulator's content cache never hits) and writing
 * 100,000 of them takes seconds, not an encoder run each.
 */
async function writeInputs(dir, count, onFile = () => undefined) {
  const base = await sharp({ create: { width: 96, height: 64, channels: 3, background: { r: 120, g: 90, b: 60 } } }).jpeg({ quality: 85 }).toBuffer();
  for (let i = 0; i < count; i++) {
    const folder = `d${String(Math.floor(i / 100)).padStart(4, '0')}`;
    const name = `p${String(i).padStart(6, '0')}.jpg`;
    if (i % 100 === 0) mkdirSync(path.join(dir, folder), { recursive: true });
    const text = Buffer.from(`pfc-bench-scale ${i}`);
    const com = Buffer.alloc(4);
    com.writeUInt16BE(0xfffe, 0);
    com.writeUInt16BE(text.length + 2, 2);
    const bytes = Buffer.concat([base.subarray(0, 2), com, text, base.subarray(2)]);
    writeFileSync(path.join(dir, folder, name), bytes);
    onFile(`${folder}/${name}`, bytes);
  }
}

/**
 * `root/in` with `count` inputs and `root/out` as a first `pfc correct` would leave it, without the hour
 * that run takes at 100,000: each output a copy of its input, the manifest's done lines written here
 * (format version 2, see packages/batch/README.md) under the header and settings line of a real
 * one-file run with the same arguments, so the rerun sees the settings key the CLI computes.
 */
async function upToDateFolder(root, count, args) {
  const seed = path.join(root, 'seed');
  await writeInputs(path.join(seed, 'in'), 1);
  const r = await pfc(args, { cwd: seed, logFile: path.join(seed, 'run.jsonl'), timeoutMs: 120_000 });
  if (r.code !== 0 || r.summary?.corrected !== 1) throw new Error(`seed run exited ${r.code}: ${r.stderr.slice(-1500)}`);
  const seedLines = readFileSync(path.join(seed, 'out', '.pfc-manifest.jsonl'), 'utf8').split('\n').filter(Boolean);
  const settings = seedLines.find((l) => JSON.parse(l).t === 's');
  rmSync(seed, { recursive: true, force: true });
  const out = path.join(root, 'out');
  const digest = (b) => createHash('sha256').update(b).digest('base64url');
  const lines = [seedLines[0], settings];
  let folder;
  await writeInputs(path.join(root, 'in'), count, (rel, bytes) => {
    const output = path.join(out, rel);
    if (path.dirname(output) !== folder) mkdirSync((folder = path.dirname(output)), { recursive: true });
    writeFileSync(output, bytes);
    const i = statSync(path.join(root, 'in', rel));
    const o = statSync(output);
    const hash = digest(bytes);
    lines.push(JSON.stringify({ t: 'd', o: rel, i: `../in/${rel}`, ih: hash, is: i.size, im: i.mtimeMs, s: JSON.parse(settings).s, oh: hash, os: o.size, om: o.mtimeMs, j: randomUUID(), d: 100 }));
  });
  writeFileSync(path.join(out, '.pfc-manifest.jsonl'), `${lines.join('\n')}\n`);
}


/** `pfc correct` as a child process, its --json lines to a file (not held here); resolves with its summary line, wall time and peak RSS. */
function pfc(args, { cwd, logFile, timeoutMs }) {
  const rssFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'pfc-rss-')), 'rss.json');
  const t0 = performance.now();
  const child = spawn(process.execPath, ['--import', RSS_PRELOAD, CLI_BIN, ...args], {
    cwd, env: { ...cleanEnv({ PFC_API_KEY: KEY }), PFC_BENCH_RSS_FILE: rssFile }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = createWriteStream(logFile);
  child.stdout.pipe(out);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr = (stderr + d).slice(-20_000); });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const ms = performance.now() - t0;
      out.end(() => {
        const tail = readTail(logFile, 64 * 1024).split('\n').filter(Boolean).at(-1) ?? '{}';
        let summary;
        try { summary = JSON.parse(tail); } catch { summary = undefined; }
        let rss = {};
        try { rss = JSON.parse(readFileSync(rssFile, 'utf8')); } catch { /* killed before exit */ }
        rmSync(path.dirname(rssFile), { recursive: true, force: true });
        resolve({ code, ms, summary, stderr, maxRssBytes: rss.maxRssBytes, cpuMs: rss.cpuMs });
      });
    });
  });
}

function readTail(file, bytes) {
  const buf = readFileSync(file);
  return buf.subarray(Math.max(0, buf.length - bytes)).toString('utf8');
}

/**
 * Time from navigation to the report's first page of cards on screen (its
 * failures and the first chunk of the other files), in a fresh headless
 * Chromium; with `folder`, also the time to open the folder index and show
 * the last folder's cards (its chunk loaded from beside the page).
 */
async function reportLoadMs(report, { folder = false } = {}) {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'] });
  try {
    const page = await browser.newPage();
    const t0 = performance.now();
    await page.goto(pathToFileURL(report).href, { waitUntil: 'load', timeout: 120_000 });
    await page.waitForSelector('#files article.card', { timeout: 120_000 });
    const ms = performance.now() - t0;
    const shown = await page.$$eval('article.card', (els) => els.length);
    if (!folder) return { ms, shown };
    const t1 = performance.now();
    await page.click('#folders summary');
    await page.waitForSelector('#folders button.folder', { timeout: 120_000 });
    const lastPage = page.locator('#folders > .pager button[title="last page"]');
    if (await lastPage.isVisible()) await lastPage.click();
    const last = page.locator('#folders button.folder').last();
    const name = await last.textContent();
    await last.click();
    // Runs in the page (globalThis there is its window).
    await page.waitForFunction((n) => {
      const doc = globalThis.document;
      return doc.querySelector('#files > .view')?.textContent?.includes(n) && doc.querySelector('#files > main h2')?.textContent?.startsWith(n);
    }, name, { timeout: 120_000 });
    return { ms, shown, folderMs: performance.now() - t1, folderShown: await page.$$eval('#files > main article.card', (els) => els.length) };
  } finally {
    await browser.close();
  }
}

/**
 * The report alone at `count` files, written in a child process from a
 * synthetic results file (bench/lib/report-writer.mjs: no job run, 1 in 1,000
 * failed, real thumbnails): the writer's time and peak RSS, the page's and its
 * data's bytes, and the first page and a folder in Chromium.
 */
async function reportOnly(dir, count, log) {
  const root = path.join(dir, `report-${count}`);
  mkdirSync(root, { recursive: true });
  try {
    const photo = path.join(root, 'photo.jpg');
    writeFileSync(photo, await sharp({ create: { width: 96, height: 64, channels: 3, background: { r: 120, g: 90, b: 60 } } }).jpeg({ quality: 85 }).toBuffer());
    const rssFile = path.join(root, 'rss.json');
    const step = (args, env) => new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.setEncoding('utf8').on('data', (d) => { out += d; });
      child.stderr.setEncoding('utf8').on('data', (d) => { err = (err + d).slice(-5000); });
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`report writer exited ${code}: ${err}`))));
    });
    // The results file in one process, the report in another: the second's peak RSS is the report's alone.
    await step([REPORT_WRITER, 'results', root, String(count), photo], {});
    const r = JSON.parse((await step(['--import', RSS_PRELOAD, REPORT_WRITER, 'report', root], { PFC_BENCH_RSS_FILE: rssFile })).trim().split('\n').at(-1));
    const { maxRssBytes } = JSON.parse(readFileSync(rssFile, 'utf8'));
    const loaded = await reportLoadMs(path.join(root, 'report.html'), { folder: true });
    const row = { count, writeMs: r.ms, writerRssBytes: maxRssBytes, pageBytes: r.pageBytes, dataBytes: r.dataBytes, loadMs: loaded.ms, shown: loaded.shown, folderMs: loaded.folderMs, folderShown: loaded.folderShown, load: os.loadavg()[0] };
    log(`${count} files, report only: written in ${(r.ms / 1000).toFixed(1)} s (writer peak RSS ${(maxRssBytes / MB).toFixed(0)} MB), page ${(r.pageBytes / 1e3).toFixed(0)} KB + data ${(r.dataBytes / MB).toFixed(1)} MB; first page in Chromium ${loaded.ms.toFixed(0)} ms (${loaded.shown} cards), a folder ${loaded.folderMs.toFixed(0)} ms (load ${row.load.toFixed(1)})`);
    return row;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function oneSize(dir, count, log, { last }) {
  const root = path.join(dir, String(count));
  const input = path.join(root, 'in');
  await writeInputs(input, count);
  const emu = await spawnBenchEmulator({ processingMs: 0, workers: WORKERS, apiKeys: [KEY], engine: false, dataDir: path.join(root, 'emulator') });
  try {
    const out = path.join(root, 'out');
    const report = path.join(root, 'report.html');
    const args = ['correct', 'in', '-o', 'out', '--backend', 'web', '--base-url', emu.web, '--json', '--yes', '-j', String(WORKERS), '-p', 'cache=false', '--report', report];
    const r = await pfc(args, { cwd: root, logFile: path.join(root, 'run.jsonl'), timeoutMs: 3 * 3600_000 });
    if (r.code !== 0 || r.summary?.corrected !== count) throw new Error(`pfc correct (${count}) exited ${r.code} (${JSON.stringify(r.summary)?.slice(0, 500)}): ${r.stderr.slice(-1500)}`);
    const manifestBytes = statSync(path.join(out, '.pfc-manifest.jsonl')).size;
    const row = { count, ms: r.ms, filesPerS: count / (r.ms / 1000), maxRssBytes: r.maxRssBytes, manifestBytesPerFile: manifestBytes / count, reportBytes: statSync(report).size, load: os.loadavg()[0] };
    log(`${count} files: ${(r.ms / 1000).toFixed(1)} s = ${row.filesPerS.toFixed(0)} files/s, peak RSS ${(r.maxRssBytes / MB).toFixed(0)} MB, manifest ${row.manifestBytesPerFile.toFixed(0)} B/file, report page ${(row.reportBytes / 1e3).toFixed(0)} KB (load ${row.load.toFixed(1)})`);
    // The rerun at every size: how its time grows with the file count shows before the largest run.
    const again = await pfc(args.filter((a, i) => a !== '--report' && args[i - 1] !== '--report'), { cwd: root, logFile: path.join(root, 'rerun.jsonl'), timeoutMs: 3600_000 });
    if (again.code !== 0 || again.summary?.upToDate !== count) throw new Error(`rerun exited ${again.code} (${JSON.stringify(again.summary)?.slice(0, 500)}): ${again.stderr.slice(-1500)}`);
    row.rerunMs = again.ms;
    row.rerunRssBytes = again.maxRssBytes;
    row.rerunLines = readFileSync(path.join(root, 'rerun.jsonl'), 'utf8').split('\n').filter(Boolean).length;
    log(`${count} files: rerun all up to date ${(again.ms / 1000).toFixed(2)} s (peak RSS ${(again.maxRssBytes / MB).toFixed(0)} MB, ${row.rerunLines} --json lines)`);
    await copiedReruns(root, count, args.filter((a, i) => a !== '--report' && args[i - 1] !== '--report'), row, log);
    if (last) {
      const loaded = await reportLoadMs(report);
      row.reportLoadMs = loaded.ms;
      row.reportCardsShown = loaded.shown;
      log(`${count} files: report first page in Chromium ${loaded.ms.toFixed(0)} ms (${loaded.shown} cards)`);
    }
    return row;
  } finally {
    await emu.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * The folder as a copy without its files' times leaves it (`cp -r`, an unzip, a restore): every photo and result
 * given a new modification time. The first rerun reads and hashes each once and records their new stats; the
 * second, as any rerun, reads none: both timed in the same run.
 */
async function copiedReruns(root, count, args, row, log) {
  const at = new Date(Date.now() - 3600_000);
  for (const e of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (e.isFile() && /\.jpg$/.test(e.name)) utimesSync(path.join(e.parentPath, e.name), at, at);
  }
  for (const which of ['copiedFirst', 'copiedSecond']) {
    const r = await pfc(args, { cwd: root, logFile: path.join(root, `${which}.jsonl`), timeoutMs: 3600_000 });
    if (r.code !== 0 || r.summary?.upToDate !== count) throw new Error(`rerun after a copy exited ${r.code} (${JSON.stringify(r.summary)?.slice(0, 500)}): ${r.stderr.slice(-1500)}`);
    row[`${which}Ms`] = r.ms;
  }
  log(`${count} files copied without their times: first rerun ${(row.copiedFirstMs / 1000).toFixed(2)} s (each photo and result hashed once), next ${(row.copiedSecondMs / 1000).toFixed(2)} s`);
}

/** The rerun alone at `count` files (see upToDateFolder), with --report: its time, peak RSS and the report's first page in Chromium. */
async function rerunOnly(dir, count, log) {
  const root = path.join(dir, `rerun-${count}`);
  const emu = await spawnBenchEmulator({ processingMs: 0, workers: WORKERS, apiKeys: [KEY], engine: false, dataDir: path.join(dir, `rerun-${count}-emulator`) });
  try {
    const args = ['correct', 'in', '-o', 'out', '--backend', 'web', '--base-url', emu.web, '--json', '--yes', '-j', String(WORKERS), '-p', 'cache=false'];
    await upToDateFolder(root, count, args);
    const report = path.join(root, 'report.html');
    const plain = await pfc(args, { cwd: root, logFile: path.join(root, 'rerun.jsonl'), timeoutMs: 3600_000 });
    if (plain.code !== 0 || plain.summary?.upToDate !== count) throw new Error(`rerun exited ${plain.code} (${JSON.stringify(plain.summary)?.slice(0, 500)}): ${plain.stderr.slice(-1500)}`);
    const row = { count, rerunOnly: true, rerunMs: plain.ms, rerunRssBytes: plain.maxRssBytes, rerunCpuMs: plain.cpuMs, load: os.loadavg()[0] };
    log(`${count} files (made up to date without a first run): rerun ${(plain.ms / 1000).toFixed(2)} s, CPU ${(plain.cpuMs / 1000).toFixed(2)} s, peak RSS ${(plain.maxRssBytes / MB).toFixed(0)} MB (load ${row.load.toFixed(1)})`);
    const withReport = await pfc([...args, '--report', report], { cwd: root, logFile: path.join(root, 'rerun-report.jsonl'), timeoutMs: 3600_000 });
    if (withReport.code !== 0) throw new Error(`rerun --report exited ${withReport.code}: ${withReport.stderr.slice(-1500)}`);
    row.reportRunMs = withReport.ms;
    row.reportRunRssBytes = withReport.maxRssBytes;
    row.reportBytes = statSync(report).size;
    const loaded = await reportLoadMs(report);
    row.reportLoadMs = loaded.ms;
    row.reportCardsShown = loaded.shown;
    log(`${count} files: rerun with --report ${(withReport.ms / 1000).toFixed(2)} s, peak RSS ${(withReport.maxRssBytes / MB).toFixed(0)} MB; report page ${(row.reportBytes / 1e3).toFixed(0)} KB, first page in Chromium ${loaded.ms.toFixed(0)} ms (${loaded.shown} cards)`);
    return row;
  } finally {
    await emu.stop();
    rmSync(root, { recursive: true, force: true });
    rmSync(path.join(dir, `rerun-${count}-emulator`), { recursive: true, force: true });
  }
}

export default {
  name: 'scale',
  area: 'Scale',
  title: 'Scale: 1,000 / 10,000 / 100,000 files through pfc correct (memory, speed, manifest, rerun, report)',
  async run({ quick, dir, log }) {
    const sizes = process.env.PFC_BENCH_SCALE_SIZES !== undefined ? process.env.PFC_BENCH_SCALE_SIZES.split(',').filter(Boolean).map(Number) : quick ? [200, 2000] : [1000, 10_000, 100_000];
    const rerunSizes = process.env.PFC_BENCH_SCALE_RERUN_ONLY ? process.env.PFC_BENCH_SCALE_RERUN_ONLY.split(',').map(Number) : [];
    const rows = [];
    for (const [i, count] of sizes.entries()) rows.push(await oneSize(dir, count, log, { last: i === sizes.length - 1 && rerunSizes.length === 0 }));
    const reruns = [];
    for (const count of rerunSizes) reruns.push(await rerunOnly(dir, count, log));
    const reportSizes = process.env.PFC_BENCH_SCALE_REPORT_SIZES !== undefined ? process.env.PFC_BENCH_SCALE_REPORT_SIZES.split(',').filter(Boolean).map(Number) : quick ? [2000] : [10_000, 100_000];
    const reports = [];
    for (const count of reportSizes) reports.push(await reportOnly(dir, count, log));
    const first = rows[0];
    const big = rows.at(-1);
    const mid = rows.length > 2 ? rows.at(-2) : undefined;
    const figures = rows.flatMap((r) => [
      { name: `${r.count} files: client peak RSS`, value: +(r.maxRssBytes / MB).toFixed(1), unit: 'MB', goal: '≤ 250 MB', ok: r.maxRssBytes <= GOALS.rssBytes },
      { name: `${r.count} files: throughput`, value: +r.filesPerS.toFixed(1), unit: 'files/s', note: `${(r.ms / 1000).toFixed(1)} s whole command, report included; load average ${r.load.toFixed(1)}` },
      { name: `${r.count} files: manifest per file`, value: +r.manifestBytesPerFile.toFixed(0), unit: 'B', goal: '≤ 300 B', ok: r.manifestBytesPerFile <= GOALS.manifestBytesPerFile },
      ...(r === big ? [] : [{ name: `${r.count} files: rerun, everything up to date`, value: +(r.rerunMs / 1000).toFixed(2), unit: 's', note: `peak RSS ${(r.rerunRssBytes / MB).toFixed(0)} MB, ${r.rerunLines} --json lines` }]),
      { name: `${r.count} files copied without their times: first rerun`, value: +(r.copiedFirstMs / 1000).toFixed(2), unit: 's', note: 'every photo and result read and hashed once, their new stats recorded (here ~2 KB files; camera photos make this read their whole size twice)' },
      { name: `${r.count} files copied without their times: the rerun after`, value: +(r.copiedSecondMs / 1000).toFixed(2), unit: 's', note: 'stats only, as any up-to-date rerun' },
    ]);
    if (rows.length > 1) {
      const share = big.filesPerS / first.filesPerS;
      figures.push({ name: `throughput ${big.count} vs ${first.count} files`, value: +share.toFixed(2), unit: '×', goal: `≥ ${GOALS.speedShare}`, ok: share >= GOALS.speedShare });
      const from = mid ?? first;
      const growth = big.maxRssBytes - from.maxRssBytes;
      figures.push({ name: `peak RSS growth ${from.count} → ${big.count} files`, value: +(growth / MB).toFixed(1), unit: 'MB', goal: `flat (≤ ${GOALS.flatBytes / MB} MB)`, ok: growth <= GOALS.flatBytes });
    }
    for (const r of reruns) {
      figures.push(
        { name: `${r.count} files: rerun, everything up to date (folder made up to date without a first run)`, value: +(r.rerunMs / 1000).toFixed(2), unit: 's', goal: '≤ 5 s', ok: r.rerunMs <= GOALS.rerunMs, note: `CPU ${(r.rerunCpuMs / 1000).toFixed(2)} s, peak RSS ${(r.rerunRssBytes / MB).toFixed(0)} MB, load average ${r.load.toFixed(1)}` },
        { name: `${r.count} files: rerun peak RSS`, value: +(r.rerunRssBytes / MB).toFixed(1), unit: 'MB', goal: '≤ 250 MB', ok: r.rerunRssBytes <= GOALS.rssBytes },
        { name: `${r.count} files: report's first page in Chromium`, value: Math.round(r.reportLoadMs), unit: 'ms', goal: '≤ 2000 ms', ok: r.reportLoadMs <= GOALS.reportMs, note: `${(r.reportBytes / 1e3).toFixed(0)} KB page of up-to-date files (their rows beside it), ${r.reportCardsShown} cards on its first page; the rerun writing it: peak RSS ${(r.reportRunRssBytes / MB).toFixed(0)} MB` },
      );
    }
    // The goals on the rerun and the report belong to the largest size: a rerun-only size when there is one.
    if (big) {
      const bigRerun = { name: `${big.count} files: rerun, everything up to date`, value: +(big.rerunMs / 1000).toFixed(2), unit: 's', note: `peak RSS ${(big.rerunRssBytes / MB).toFixed(0)} MB, ${big.rerunLines} --json lines` };
      if (reruns.length > 0) figures.push(bigRerun);
      else {
        figures.push(
          { ...bigRerun, goal: '≤ 5 s', ok: big.rerunMs <= GOALS.rerunMs },
          { name: `${big.count} files: report's first page in Chromium`, value: Math.round(big.reportLoadMs), unit: 'ms', goal: '≤ 2000 ms', ok: big.reportLoadMs <= GOALS.reportMs, note: `${(big.reportBytes / 1e3).toFixed(0)} KB page (the rows beside it), ${big.reportCardsShown} cards on its first page` },
        );
      }
    }
    for (const r of reports) {
      figures.push(
        { name: `${r.count} files, report only: first page in Chromium`, value: Math.round(r.loadMs), unit: 'ms', ...(r === reports.at(-1) ? { goal: '≤ 2000 ms', ok: r.loadMs <= GOALS.reportMs } : {}), note: `page ${(r.pageBytes / 1e3).toFixed(0)} KB, ${r.shown} cards (failures and the first 100 others); data beside it ${(r.dataBytes / MB).toFixed(1)} MB; a folder's ${r.folderShown} cards ${Math.round(r.folderMs)} ms; load average ${r.load.toFixed(1)}` },
        { name: `${r.count} files, report only: writer peak RSS`, value: +(r.writerRssBytes / MB).toFixed(1), unit: 'MB', note: `written in ${(r.writeMs / 1000).toFixed(1)} s from a results file, 500 thumbnails` },
      );
    }
    if (reports.length > 1) {
      const growth = reports.at(-1).writerRssBytes - reports[0].writerRssBytes;
      figures.push({ name: `report writer peak RSS growth ${reports[0].count} → ${reports.at(-1).count} files`, value: +(growth / MB).toFixed(1), unit: 'MB', goal: `flat (≤ ${GOALS.flatBytes / MB} MB)`, ok: growth <= GOALS.flatBytes });
    }
    return {
      figures,
      data: { rows, reruns, reports },
      notes: [`Engine-less emulator in its own process (--processing-ms 0, ${WORKERS} workers, cache=false); pfc correct -j ${WORKERS} --backend web --json --report, its output to a file. 96×64 JPEGs, 100 a folder. Peak RSS from the kernel (getrusage maxrss) at exit. The 2-core machine is shared: see the load averages.`],
    };
  },
};
