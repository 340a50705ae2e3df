/**
 * Quality: runs the colour-correction quality benchmark (bench/quality.mjs,
 * owned by the engine) and carries its held-out figures and goals into the
 * table (the tune set's figures are in the JSON). Left out of --quick: it
 * corrects 129 photos under 18 degradations and takes many minutes.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BENCH_DIR } from '../lib/paths.mjs';
import { runNode } from '../lib/proc.mjs';

export default {
  name: 'quality',
  area: 'Quality',
  title: 'Quality: colour correction of held-out photos against known degradations (bench/quality.mjs)',
  async run({ quick, dir, log }) {
    if (quick) return { figures: [], notes: ['Skipped in --quick (many minutes on its own); the full run includes it, or run node bench/quality.mjs.'] };
    const json = path.join(dir, 'quality.json');
    const sheet = path.join(dir, 'quality-worst.png');
    const r = await runNode(path.join(BENCH_DIR, 'quality.mjs'), ['--json', json, '--sheet', sheet], { timeoutMs: 60 * 60_000 });
    if (r.code !== 0) throw new Error(`bench/quality.mjs exited ${r.code ?? r.signal}: ${r.stderr.slice(-2000)}`);
    const q = JSON.parse(readFileSync(json, 'utf8'));
    const held = q.sets.heldout;
    const de = (x) => (x === null || x === undefined ? '–' : +x.toFixed(2));
    const o = held.overall;
    log(`held-out mean ΔE2000: degraded ${de(o.degraded)}, engine ${de(o.engine)}, normalise ${de(o.normalise)}, auto-level ${de(o.autoLevel)}`);
    return {
      figures: [
        ...held.perKind.map((k) => ({ name: `held-out ${k.kind}: degraded → engine (normalise, auto-level)`, value: `${de(k.degraded)} → ${de(k.engine)} (${de(k.normalise)}, ${de(k.autoLevel)})` })),
        { name: 'held-out mean ΔE2000 of the degraded copies', value: de(o.degraded) },
        { name: 'held-out mean ΔE2000 after the engine', value: de(o.engine), note: `${q.engineMsPerImage ? `${Math.round(q.engineMsPerImage)} ms per image` : ''}` },
        { name: "held-out mean ΔE2000 after sharp's normalise()", value: de(o.normalise) },
        { name: "held-out mean ΔE2000 after ImageMagick's -auto-level", value: de(o.autoLevel) },
        { name: 'held-out good originals moved: mean / p90 / worst', value: `${de(held.originals.mean)} / ${de(held.originals.p90)} / ${de(held.originals.worst?.deltaE)} (${held.originals.worst?.photo})` },
        ...q.goals.map((g) => ({ name: g.goal, value: g.ok === null ? 'n/a' : g.ok ? 'yes' : 'no', goal: 'yes', ok: g.ok })),
        ...portraitFigures(q.portraits, de),
      ],
      data: q,
      notes: [...(q.notes ?? []), `${q.photos.length} photos (tune and held-out sets, bench/photos/LICENSES.md) × ${q.degradations.length} degradations; lower ΔE is better; worst cases in quality-worst.png.`],
    };
  },
};

/** The portraits' figures: casts on the photos with a face, the look without and with its face detector. */
function portraitFigures(p, de) {
  if (!p || p.photos.length === 0) return [];
  return [
    { name: `portraits under casts (${p.photos.join(', ')}): degraded → look without faces → with faces`, value: `${de(p.casts.degraded)} → ${de(p.casts.withoutFaces)} → ${de(p.casts.withFaces)}` },
    { name: 'portraits: good originals moved, worst, without / with faces', value: `${de(p.originalsWorst.withoutFaces)} / ${de(p.originalsWorst.withFaces)}` },
  ];
}
