/**
 * The results file pair: a Markdown table for people and a JSON file with
 * every figure and the raw data behind it, both under bench-results/.
 *
 * A suite returns `{ title, figures: Figure[], data?, notes? }` where
 * Figure = { name, value, unit?, goal?, ok?: boolean|null, note? };
 * `ok` is true/false when the figure has a goal, null when it could not be
 * judged (e.g. measured elsewhere and missing).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './paths.mjs';

/** Facts about the run that the figures depend on. */
export function environment(quick) {
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    // not a git checkout: keep "unknown"
  }
  return {
    mode: quick ? 'quick' : 'full',
    startedAt: new Date().toISOString(),
    commit,
    node: process.version,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGB: +(os.totalmem() / 2 ** 30).toFixed(1),
    loadAverageAtStart: os.loadavg().map((x) => +x.toFixed(2)),
  };
}

const status = (ok) => (ok === true ? 'met' : ok === false ? '**missed**' : ok === null ? 'n/a' : '');
const cell = (s) => String(s ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ');
const value = (f) => (typeof f.value === 'number' ? `${f.value}${f.unit ? ` ${f.unit}` : ''}` : `${f.value ?? '–'}${f.unit && f.value !== undefined ? ` ${f.unit}` : ''}`);

/** Markdown for the whole run. */
export function toMarkdown(env, suites) {
  const lines = [];
  lines.push(`# Benchmarks and reliability (${env.mode})`, '');
  lines.push(
    `Run ${env.startedAt} on commit \`${env.commit}\`, Node ${env.node}, ${env.cpus} × ${env.cpuModel}, ${env.memoryGB} GiB; ` +
      `load average at start ${env.loadAverageAtStart.join(' / ')}. Total ${(env.durationMs / 1000).toFixed(0)} s.`,
    '',
  );
  const goals = suites.flatMap((s) => (s.figures ?? []).filter((f) => f.goal).map((f) => ({ suite: s.area ?? s.title, ...f })));
  if (goals.length) {
    lines.push('## Goals', '', '| Area | Figure | Value | Goal | Status |', '|---|---|---|---|---|');
    for (const g of goals) lines.push(`| ${cell(g.suite)} | ${cell(g.name)} | ${cell(value(g))} | ${cell(g.goal)} | ${status(g.ok)} |`);
    lines.push('');
  }
  for (const s of suites) {
    lines.push(`## ${s.title}`, '');
    if (s.error) lines.push(`**The suite did not complete:** ${cell(s.error)}`, '');
    if (s.figures?.length) {
      lines.push('| Figure | Value | Goal | Note |', '|---|---|---|---|');
      for (const f of s.figures) lines.push(`| ${cell(f.name)} | ${cell(value(f))} | ${cell(f.goal ? `${f.goal} (${status(f.ok)})` : '')} | ${cell(f.note)} |`);
      lines.push('');
    }
    for (const n of s.notes ?? []) lines.push(`- ${n}`);
    if (s.notes?.length) lines.push('');
    lines.push(`_${(s.durationMs / 1000).toFixed(1)} s_`, '');
  }
  return lines.join('\n');
}

/** Writes `<dir>/<base>.md` and `<dir>/<base>.json`; returns their paths. */
export function writeResults(dir, base, env, suites) {
  mkdirSync(dir, { recursive: true });
  const md = path.join(dir, `${base}.md`);
  const json = path.join(dir, `${base}.json`);
  writeFileSync(md, toMarkdown(env, suites));
  writeFileSync(json, `${JSON.stringify({ environment: env, suites }, null, 2)}\n`);
  return { md, json };
}
