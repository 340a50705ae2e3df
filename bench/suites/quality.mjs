/**
 * Quality: runs the colour-correction quality benchmark (bench/quality.mjs,
 * owned by the engine) and carries its overall figures and goals into the
 * table. Left out of --quick: it corrects every sample under eleven
 * degradations and takes about a minute on its own.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BENCH_DIR } from '../lib/paths.mjs';
import { runNode } from '../lib/proc.mjs';

export default {
  name: 'quality',
  area: 'Quality',
  title: 'Quality: colour correction against known degradations (bench/quality.mjs)',
  async run({ quick, dir, log }) {
    if (quick) return { figures: [], notes: ['Skipped in --quick (about a minute on its own); the full run includes it, or run node bench/quality.mjs.'] };
    const json = path.join(dir, 'quality.json');
    const r = await runNode(path.join(BENCH_DIR, 'quality.mjs'), ['--json', json], { timeoutMs: 20 * 60_000 });
    if (r.code !== 0) throw new Error(`bench/quality.mjs exited ${r.code ?? r.signal}: ${r.stderr.slice(-2000)}`);
    const q = JSON.parse(readFileSync(json, 'utf8'));
    const o = q.overall;
    const de = (x) => (x === null || x === undefined ? '–' : +x.toFixed(2));
    log(`mean ΔE2000: degraded ${de(o.degraded)}, engine ${de(o.engine)}, normalise ${de(o.normalise)}, auto-level ${de(o.autoLevel)}`);
    return {
      figures: [
        { name: 'mean ΔE2000 of the degraded copies', value: de(o.degraded) },
        { name: 'mean ΔE2000 after the engine', value: de(o.engine), note: `${q.engineMsPerImage ? `${Math.round(q.engineMsPerImage)} ms per image` : ''}` },
        { name: "mean ΔE2000 after sharp's normalise()", value: de(o.normalise) },
        { name: "mean ΔE2000 after ImageMagick's -auto-level", value: de(o.autoLevel) },
        ...q.goals.map((g) => ({ name: g.goal, value: g.ok === null ? 'n/a' : g.ok ? 'yes' : 'no', goal: 'yes', ok: g.ok })),
      ],
      data: q,
      notes: [...(q.notes ?? []), `${q.photos.length} photos × ${q.degradations.length} degradations; lower ΔE is better. Per-degradation figures in the JSON.`],
    };
  },
};
