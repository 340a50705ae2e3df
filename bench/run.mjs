#!/usr/bin/env node
/**
 * `npm run bench` — speed, memory and reliability figures of the whole
 * product on this machine, each comparison run side by side in the same run.
 *
 * Usage: node bench/run.mjs [--quick] [--only a,b] [--skip a,b] [--out DIR] [--keep] [--list]
 *   --quick      smoke check: every suite with small sizes (under two minutes)
 *   --only LIST  run only these suites (names from --list)
 *   --skip LIST  leave these suites out
 *   --out DIR    results folder (default bench-results/, git-ignored)
 *   --keep       keep the temporary working folders (printed) for inspection
 *   --list       print the suite names and exit
 *
 * Writes <out>/bench.md and <out>/bench.json (bench-quick.* with --quick;
 * bench-partial.* / bench-quick-partial.* with --only or --skip).
 * Exit code: 0 when every suite completed (goals missed are reported, not
 * failed), 1 when a suite could not complete, 2 on a usage error.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { RESULTS_DIR } from './lib/paths.mjs';
import { environment, toMarkdown, writeResults } from './lib/report.mjs';
import { findSecret } from './lib/secrets.mjs';
import { SUITES } from './suites/index.mjs';

function usage(message) {
  process.stderr.write(`bench: ${message}\nUsage: node bench/run.mjs [--quick] [--only a,b] [--skip a,b] [--out DIR] [--keep] [--list]\n`);
  process.exit(2);
}

let args;
try {
  args = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      skip: { type: 'string' },
      out: { type: 'string' },
      keep: { type: 'boolean', default: false },
      list: { type: 'boolean', default: false },
    },
  }).values;
} catch (err) {
  usage(err.message);
}

if (args.list) {
  for (const s of SUITES) console.log(`${s.name.padEnd(10)} ${s.title}`);
  process.exit(0);
}

const names = new Set(SUITES.map((s) => s.name));
const pick = (list) => (list ?? '').split(',').map((s) => s.trim()).filter(Boolean);
for (const n of [...pick(args.only), ...pick(args.skip)]) if (!names.has(n)) usage(`unknown suite "${n}" (known: ${[...names].join(', ')})`);
const only = pick(args.only);
const skip = new Set(pick(args.skip));
const selected = SUITES.filter((s) => (only.length ? only.includes(s.name) : true) && !skip.has(s.name));

const env = environment(args.quick);
const tmpRoot = mkdtempSync(path.join(os.tmpdir(), 'pfc-bench-'));
const t0 = performance.now();
const results = [];
/** Keys the suites used (the soak's API key): the results must not contain them. Never printed. */
const secrets = [];
console.log(`bench (${env.mode}): ${selected.map((s) => s.name).join(', ')}; working folder ${tmpRoot}`);

for (const suite of selected) {
  const started = performance.now();
  console.log(`\n== ${suite.title}`);
  const ctx = {
    quick: args.quick,
    dir: mkdtempSync(path.join(tmpRoot, `${suite.name}-`)),
    log: (msg) => console.log(`   ${msg}`),
    onSecret: (secret) => secrets.push(secret),
  };
  let result;
  try {
    result = await suite.run(ctx);
  } catch (err) {
    console.error(err);
    result = { figures: [], error: err instanceof Error ? err.message : String(err) };
  }
  const durationMs = performance.now() - started;
  results.push({ name: suite.name, area: suite.area, title: suite.title, durationMs, ...result });
  for (const f of result.figures ?? []) {
    const mark = f.ok === true ? 'ok  ' : f.ok === false ? 'MISS' : '    ';
    console.log(` ${mark} ${f.name}: ${f.value ?? '–'}${f.unit ? ` ${f.unit}` : ''}${f.goal ? `  (goal ${f.goal})` : ''}`);
  }
  if (result.error) console.log(` ERROR ${result.error}`);
  console.log(`   (${(durationMs / 1000).toFixed(1)} s)`);
}

env.durationMs = performance.now() - t0;
const outDir = path.resolve(args.out ?? RESULTS_DIR);
if (secrets.length) {
  // The report as it will be written, and whatever else is in the results folder.
  const texts = { 'the Markdown results': toMarkdown(env, results), 'the JSON results': JSON.stringify(results) };
  const hits = secrets.flatMap((k) => findSecret(k, { texts, dirs: existsSync(outDir) ? [outDir] : [] }).hits);
  results.push({
    name: 'secrets',
    area: 'Secrets',
    title: 'Secrets: this report',
    durationMs: 0,
    figures: [{ name: 'API keys used by the suites found in these results', value: hits.length, goal: '0', ok: hits.length === 0, note: hits.join(', ') }],
  });
}
// A partial run (--only/--skip) must not replace the figures of a whole run.
const base = `${args.quick ? 'bench-quick' : 'bench'}${only.length || skip.size ? '-partial' : ''}`;
const out = writeResults(outDir, base, env, results);
console.log(`\nfigures written to ${path.relative(process.cwd(), out.md)} and ${path.relative(process.cwd(), out.json)} (${(env.durationMs / 1000).toFixed(0)} s)`);
if (args.keep) console.log(`working folders kept under ${tmpRoot}`);
else rmSync(tmpRoot, { recursive: true, force: true });
process.exitCode = results.some((r) => r.error) ? 1 : 0;
