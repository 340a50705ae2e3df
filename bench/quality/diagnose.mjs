#!/usr/bin/env node
/**
 * Diagnosis for the tuning loop (not run by the bench): for each photo of a
 * set, what the planner measured on the good original and on each
 * degradation, and how much each step of the correction (white balance,
 * levels, exposure, vibrance, sharpening) costs or gains, measured by
 * turning that step off; `need` is how much sharpening/vibrance the photo
 * was found to need (colour/finish.ts). Usage (after `node bench/quality.mjs --quick` made the
 * small copies): node bench/quality/diagnose.mjs [--set tune] [--small 384]
 *   [--only name,name] [--kinds bright,haze] [--originals]
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ANALYSIS_SIDE, correctRaster, detectScene, meanDeltaE2000, planCorrection, pointSample, resolvePreset, sceneName, thumbnailRaster } from '@pfc/engine';
import { DEGRADATIONS } from './degradations.mjs';
import { rawRgb } from './measure.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const arg = (n, d) => (args.includes(n) ? args[args.indexOf(n) + 1] : d);
const set = arg('--set', 'tune');
const small = arg('--small', '384');
const only = arg('--only', '').split(',').filter(Boolean);
const kinds = arg('--kinds', '').split(',').filter(Boolean);
const originalsOnly = args.includes('--originals');
const dir = path.join(HERE, '..', 'out', `quality-small-${small}`, set);
const STEPS = { wb: { whiteBalance: 0 }, levels: { contrast: 0 }, exposure: { exposure: 0 }, vibrance: { vibrance: 0 }, sharpen: { sharpen: 0 } };
const f2 = (x) => (x >= 0 ? ' ' : '') + x.toFixed(2);

async function look(raster) {
  const thumb = await thumbnailRaster(raster, ANALYSIS_SIDE);
  const { scene, signals } = detectScene(thumb, []);
  const params = resolvePreset(undefined, scene).params;
  const points = pointSample(raster, ANALYSIS_SIDE);
  const { diagnostics } = planCorrection(thumb, params, 'still', undefined, { points });
  const evidence = diagnostics.evidence;
  const run = async (p) => (await correctRaster(raster, p, { thumb, points, evidence })).raster.data;
  // The need of the finishing steps as the look measures it (acutance on the full image).
  const corrected = await correctRaster(raster, params, { thumb, points, evidence });
  const full = corrected.raster.data;
  const off = {};
  for (const [k, v] of Object.entries(STEPS)) off[k] = await run({ ...params, ...v });
  return { scene, signals, diagnostics: { ...diagnostics, need: corrected.diagnostics?.need }, full, off };
}

for (const f of readdirSync(dir).sort()) {
  const name = f.replace(/\.png$/, '');
  if (only.length && !only.includes(name)) continue;
  const orig = await rawRgb(path.join(dir, f));
  const r = { ...orig, channels: 3 };
  const cases = [{ name: 'ORIGINAL', data: orig.data }, ...(originalsOnly ? [] : DEGRADATIONS.filter((d) => !kinds.length || kinds.some((k) => d.kind.startsWith(k))).map((d) => ({ name: d.name, data: d.apply(orig.data) })))];
  for (const c of cases) {
    const res = await look({ ...r, data: c.data });
    const dE = (x) => meanDeltaE2000(orig.data, x, 3, 4);
    const e = dE(res.full);
    const ev = res.diagnostics.evidence;
    const ch = (x) => (x ? `${f2(x.u)}/${f2(x.v)}` : '   -   ');
    const steps = Object.entries(res.off).map(([k, d]) => `${k} ${f2(e - dE(d))}`).join(' ');
    console.log(
      `${name.padEnd(20)} ${c.name.slice(0, 22).padEnd(22)} in ${dE(c.data).toFixed(2).padStart(5)} → ${e.toFixed(2).padStart(5)} | ${sceneName(res.scene).padEnd(9)} key ${res.signals.key.toFixed(2)} sky ${res.signals.sky.toFixed(2)} | gw ${ch(ev.greyWorld)} sg ${ch(ev.shadesOfGrey)} ge ${ch(ev.greyEdge)} wp ${ch(ev.whitePatch)} → ${ch(ev.consensus)} mood ${res.diagnostics.mood.toFixed(2)} need ${res.diagnostics.need ? `${res.diagnostics.need.sharpen.toFixed(2)}/${res.diagnostics.need.vibrance.toFixed(2)}` : '-'} lv ${res.diagnostics.levels.map((x) => x.toFixed(2)).join('/')} | step cost: ${steps}`,
    );
  }
}
