/** Figures, goals and the printed tables of the quality benchmark. */

const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
const p90 = (xs) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const k = (s.length - 1) * 0.9;
  return s[Math.floor(k)] + (s[Math.ceil(k)] - s[Math.floor(k)]) * (k - Math.floor(k));
};
const fmt = (v) => (Number.isFinite(v) ? v.toFixed(2).padStart(6) : '   n/a');
const COLUMNS = ['degraded', 'engine', 'normalise', 'autoLevel'];

/** Per-kind and overall means of one set's results, and how far its good originals moved. */
export function summarise(results, kinds) {
  const rows = results.flatMap((r) => r.rows.map((row) => ({ ...row, photo: r.name })));
  const meanOf = (rs) => Object.fromEntries(COLUMNS.map((c) => [c, rs.some((x) => c in x) ? mean(rs.map((x) => x[c])) : null]));
  const perKind = kinds.map((kind) => {
    const rs = rows.filter((x) => x.kind === kind);
    return { kind, ...meanOf(rs), engineWorse: rs.filter((x) => x.engine > x.degraded).length, cases: rs.length };
  });
  const moved = results.map((r) => ({ photo: r.name, deltaE: r.original })).sort((a, b) => b.deltaE - a.deltaE);
  const ds = moved.map((m) => m.deltaE);
  return {
    photos: results.length,
    perKind,
    overall: { ...meanOf(rows), engineWorse: rows.filter((x) => x.engine > x.degraded).length, cases: rows.length },
    originals: { mean: mean(ds), p90: p90(ds), worst: moved[0] ?? null, over2: ds.filter((d) => d > 2).length, over4: ds.filter((d) => d > 4).length, moved },
  };
}

/** The issue's goals, judged on the held-out set. */
export function goalsOf(s, haveIm) {
  const o = s.overall;
  return [
    { goal: 'better than the degraded copy for every degradation kind', ok: s.perKind.every((k) => k.engine < k.degraded) },
    { goal: 'overall mean at most half the degraded one', ok: o.engine <= o.degraded / 2 },
    { goal: "better than sharp's normalise()", ok: o.engine < o.normalise },
    { goal: "better than ImageMagick's -auto-level", ok: haveIm ? o.engine < o.autoLevel : null },
    { goal: 'good originals: 90th percentile below ΔE 2', ok: s.originals.p90 < 2 },
    { goal: 'good originals: none above ΔE 4', ok: s.originals.over4 === 0 },
  ];
}

/** Print every set's tables and the goals. */
export function printSummary(summary, nDegradations) {
  console.log('\nColour-correction quality: mean CIEDE2000 to the undegraded original (lower is better)');
  for (const [set, s] of Object.entries(summary.sets)) {
    console.log(`\n[${set}] ${s.photos} photos x ${nDegradations} degradations`);
    console.log(`${'kind'.padEnd(14)} degraded  engine normalise auto-level  engine worse`);
    for (const k of [...s.perKind, { kind: 'ALL', ...s.overall }]) {
      console.log(`${k.kind.padEnd(14)} ${fmt(k.degraded)}  ${fmt(k.engine)}  ${fmt(k.normalise)}   ${fmt(k.autoLevel ?? NaN)}   ${String(k.engineWorse).padStart(4)}/${k.cases}`);
    }
    const g = s.originals;
    console.log(`good originals moved: mean ${g.mean.toFixed(2)}, p90 ${g.p90.toFixed(2)}, worst ${g.worst?.deltaE.toFixed(2)} (${g.worst?.photo}); ${g.over2} above 2, ${g.over4} above 4`);
    console.log(`  most moved: ${g.moved.slice(0, 5).map((m) => `${m.photo} ${m.deltaE.toFixed(2)}`).join(', ')}`);
  }
  if (summary.goals.length) {
    console.log('\nGoals (held-out set):');
    for (const g of summary.goals) console.log(`${g.ok === null ? 'SKIP' : g.ok ? 'PASS' : 'FAIL'}  ${g.goal}`);
  }
  for (const n of summary.notes) console.log(`note: ${n}`);
}
