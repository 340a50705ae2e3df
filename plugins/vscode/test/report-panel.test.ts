/** The report panel of a large run: at most REPORT_PANEL_ROWS files, the failures first, and a line saying how many are shown. */
import type { BatchSummary, FileResult } from '@pfc/batch';
import { describe, expect, test } from 'vitest';
import { REPORT_PANEL_ROWS, renderReport } from '../src/report';
import { ENGLISH_L10N } from '../src/vscode-api';

function summaryOf(n: number, failEvery: number): BatchSummary {
  const results: FileResult[] = Array.from({ length: n }, (_, i) => ({
    input: `/in/p${i}.jpg`, output: `/out/p${i}.jpg`, rel: `p${i}.jpg`, status: i % failEvery === 3 ? 'failed' : 'corrected',
    media: { format: 'jpeg', fileType: 'image', contentType: 'image/jpeg' }, params: {}, bytesIn: 1000, warnings: [],
    ...(i % failEvery === 3 ? { error: `broken ${i}` } : { bytesOut: 900 }),
  }));
  const failures = results.filter((r) => r.status === 'failed');
  return { corrected: n - failures.length, skipped: 0, upToDate: 0, excluded: 0, failed: failures.length, cancelled: 0, bytesIn: 0, bytesOut: 0, durationMs: 1, interrupted: false, outputRoots: ['/out'], results, failures, excludedPaths: [] };
}

describe('the report panel', () => {
  test('shows at most REPORT_PANEL_ROWS of 100,000 files, every failure first, and says so', () => {
    const html = renderReport(summaryOf(100_000, 500), (p) => `https://cdn/${p}`, 'https://cdn', ENGLISH_L10N);
    const rows = [...html.matchAll(/<tr class="(\w[\w-]*)"><th scope="row">([^<]+)</g)].map((m) => [m[1], m[2]]);
    expect(rows).toHaveLength(REPORT_PANEL_ROWS);
    expect(rows.slice(0, 200).every(([status]) => status === 'failed')).toBe(true);
    expect(rows[200]).toEqual(['corrected', 'p0.jpg']);
    expect(html).toContain(`Showing ${REPORT_PANEL_ROWS} of 100000 files: the failures first, then the others in order.`);
  });

  test('a small run: every file, no such line', () => {
    const html = renderReport(summaryOf(12, 5), (p) => `https://cdn/${p}`, 'https://cdn', ENGLISH_L10N);
    expect(html.match(/<tr class="/g)).toHaveLength(12);
    expect(html).not.toContain('Showing');
  });
});
