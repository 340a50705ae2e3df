/**
 * Bad input: the fuzzer (bench/fuzz/run.mjs) against all three emulated
 * APIs, seed 1, ≥ 10,000 requests (1,020 with --quick), under strace.
 */
import { runFuzz } from '../fuzz/run.mjs';

export default {
  name: 'fuzz',
  area: 'Bad input',
  title: 'Bad input: fuzzer against the three emulated APIs',
  async run({ quick, log }) {
    const r = await runFuzz({ seed: 1, count: quick ? 340 : 3400, log });
    const undocumented = r.failures.filter((f) => /not a documented answer|answered 5/.test(f.why)).length;
    const other = r.failures.length - undocumented - r.crashes;
    const statuses = Object.entries(r.byApi).map(([api, s]) => `${api}: ${Object.entries(s.statuses).map(([k, n]) => `${k}×${n}`).join(' ')}`);
    return {
      figures: [
        { name: 'malformed requests sent', value: r.sent, goal: quick ? undefined : '≥ 10,000', ok: quick ? undefined : r.sent >= 10_000, note: `seed ${r.seed}; ${Object.entries(r.byApi).map(([a, s]) => `${a} ${s.sent}`).join(', ')}; ${r.regressions} saved regression cases included` },
        { name: 'emulator crashes', value: r.crashes, goal: '0', ok: r.crashes === 0 },
        { name: 'answers outside the documented codes', value: undocumented, goal: '0', ok: undocumented === 0, note: r.knownOpen.length ? `plus ${r.knownOpen.length} known and reported, not fixed yet: ${[...new Set(r.knownOpen.map((k) => k.open))].join('; ')}` : '' },
        { name: 'other findings (no answer, leaked canary)', value: other, goal: '0', ok: other === 0 },
        { name: 'files read or written outside the emulator folders', value: r.sandbox.length, goal: '0', ok: r.sandbox.length === 0, note: r.strace ? `strace (${r.straceWritesInside} writes inside seen) and canaries` : 'canaries only (strace not installed)' },
      ],
      data: r,
      notes: [
        `Answers by status — ${statuses.join('; ')}. "no-answer" only for requests cut off on purpose: ${JSON.stringify(r.noAnswer)}.`,
        'Documented answers: the specs plus each emulator README (Web API: 200 204 302 400 401 403 404 405 409 410 413 431; container: 200 400 404 405 413 431 503; BGR: 200 202 400 403 404 405 413 422 431, and 500 for DownloadImage of a failed job; OPTIONS preflights 204 everywhere).',
        ...r.failures.slice(0, 10).map((f) => `Finding: ${f.why} — ${f.case ? `${f.case.api} ${f.case.method} ${f.case.path.slice(0, 120)}` : f.stderr ?? ''}`),
        ...r.sandbox.slice(0, 10).map((s) => `File access: ${s}`),
      ],
    };
  },
};
