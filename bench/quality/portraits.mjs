/**
 * Portraits under colour casts: the engine's look with its face detector
 * (the faces' skin bounds the white balance, engine colour/skin.ts) beside
 * the same look told there is no face, on every photo of the run in which
 * the detector finds a face, both in the same run. The benchmark's other
 * figures cannot show what faces change: the `--look-only` loop finds none,
 * and the held-out set holds no portrait.
 */
import { applyLook, detectFaces, meanDeltaE2000 } from '@pfc/engine';
import { rawRgb } from './measure.mjs';

const noFaces = async () => [];

/**
 * For each photo with a face: its good original and each cast, the error
 * of the input, of the look without faces and of the look with them.
 * `photos`: `{ name, file }`; `step`: measure every step-th pixel.
 */
export async function measurePortraits(photos, degradations, step) {
  const cases = [{ name: 'original', apply: (x) => x }, ...degradations.filter((d) => d.kind.endsWith('cast'))];
  const rows = [];
  for (const { name, file } of photos) {
    const orig = await rawRgb(file);
    if ((await detectFaces({ ...orig, channels: 3 }, { boxesOnly: true })).length === 0) continue;
    const dE = (x) => meanDeltaE2000(orig.data, x, 3, step);
    for (const c of cases) {
      const input = { ...orig, channels: 3, data: c.apply(orig.data) };
      const withFaces = await applyLook(input, {}, { findFaces: detectFaces });
      const withoutFaces = await applyLook(input, {}, { findFaces: noFaces });
      rows.push({ photo: name, degradation: c.name, degraded: dE(input.data), withoutFaces: dE(withoutFaces.raster.data), withFaces: dE(withFaces.raster.data) });
    }
  }
  return summarisePortraits(rows);
}

/** Means over the casts, and the largest move of a good original, with and without faces. */
function summarisePortraits(rows) {
  const casts = rows.filter((r) => r.degradation !== 'original');
  const originals = rows.filter((r) => r.degradation === 'original');
  const mean = (xs, k) => (xs.length ? xs.reduce((s, r) => s + r[k], 0) / xs.length : null);
  const worst = (k) => (originals.length ? Math.max(...originals.map((r) => r[k])) : null);
  return {
    photos: originals.map((r) => r.photo),
    casts: { cases: casts.length, degraded: mean(casts, 'degraded'), withoutFaces: mean(casts, 'withoutFaces'), withFaces: mean(casts, 'withFaces') },
    originalsWorst: { withoutFaces: worst('withoutFaces'), withFaces: worst('withFaces') },
    rows,
  };
}

/** The portraits' lines of the printed summary. */
export function printPortraits(p) {
  if (p.photos.length === 0) return console.log('\n[portraits] no photo with a face in this run');
  const f = (x) => x.toFixed(2);
  console.log(`\n[portraits] ${p.photos.join(', ')}: ${p.casts.cases} cast copies, mean ΔE degraded ${f(p.casts.degraded)} → look without faces ${f(p.casts.withoutFaces)}, with faces ${f(p.casts.withFaces)}`);
  console.log(`  good originals moved, worst: without faces ${f(p.originalsWorst.withoutFaces)}, with faces ${f(p.originalsWorst.withFaces)}`);
  for (const r of p.rows) if (Math.abs(r.withFaces - r.withoutFaces) >= 0.05) console.log(`  ${r.photo} ${r.degradation}: ${f(r.degraded)} → ${f(r.withoutFaces)} without faces, ${f(r.withFaces)} with`);
}
