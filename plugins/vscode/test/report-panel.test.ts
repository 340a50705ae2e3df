/**
 * The report panel of a large run, driven through "Show Report" on a fake
 * VS Code whose workspace holds a last run of 5,000 files (a results file on
 * disk and the small record in workspaceState, as a run leaves them): a page
 * of REPORT_PANEL_ROWS files at a time, the failures first, pages through
 * command links. And the previous version's workspaceState value (the whole
 * run inline) after an update: moved to a results file, or dropped cleanly.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type BatchSummary, emptyCounts, type FileResult } from '@pfc/batch';
import { describe, expect, test } from 'vitest';
import { LAST_RUN_KEY, LAST_RUN_VERSION, type LastRun } from '../src/last-run';
import { REPORT_PANEL_ROWS } from '../src/report';
import { fakeStorage, FakeMemento } from './fake-vscode';
import { activateOnFake, resultsIn } from './helpers';

function resultsOf(n: number, failEvery: number): FileResult[] {
  return Array.from({ length: n }, (_, i) => ({
    input: `/in/p${i}.jpg`, output: `/out/p${i}.jpg`, rel: `p${i}.jpg`, status: i % failEvery === 3 ? 'failed' : 'corrected',
    media: { format: 'jpeg', fileType: 'image', contentType: 'image/jpeg' }, params: {}, bytesIn: 1000, warnings: [],
    ...(i % failEvery === 3 ? { error: `broken ${i}` } : { bytesOut: 900 }),
  }));
}

function summaryOf(results: FileResult[]): BatchSummary {
  const failures = results.filter((r) => r.status === 'failed');
  return { corrected: results.length - failures.length, skipped: 0, upToDate: 0, excluded: 0, failed: failures.length, refused: 0, cancelled: 0, bytesIn: 0, bytesOut: 0, durationMs: 1, interrupted: false, outputRoots: ['/out'], results, failures, excludedPaths: [], excludedCounts: emptyCounts() };
}

/** A workspace whose last run is `results`: the results file in the extension's storage and the record in workspaceState. */
function workspaceWith(results: FileResult[]): { workspaceState: FakeMemento; storage: ReturnType<typeof fakeStorage> } {
  const storage = fakeStorage();
  const dir = join(storage.workspace!, 'runs');
  mkdirSync(dir, { recursive: true });
  const resultsFile = join(dir, 'run-abc-0123abcd.jsonl');
  writeFileSync(resultsFile, results.map((r) => `${JSON.stringify(r)}\n`).join(''));
  const { results: _all, failures: _f, excludedPaths: _e, excludedCounts: _c, ...counts } = summaryOf(results);
  const record: LastRun = { version: LAST_RUN_VERSION, inputs: ['/in'], mode: 'folder', params: {}, summary: counts, resultsFile };
  const workspaceState = new FakeMemento();
  void workspaceState.update(LAST_RUN_KEY, record);
  return { workspaceState, storage };
}

/** The rows of the panel's page: [status, file]. */
function rowsOf(html: string): string[][] {
  return [...html.matchAll(/<tr class="(\w[\w-]*)"><th scope="row">([^<]+)</g)].map((m) => [m[1]!, m[2]!]);
}

/** The pages the panel's links lead to. */
function pageLinks(html: string): number[] {
  return [...html.matchAll(/href="command:pfc\.showReport\?([^"]+)"/g)].map((m) => (JSON.parse(decodeURIComponent(m[1]!)) as number[])[0]!);
}

describe('the report panel of a large run', () => {
  test('pages of REPORT_PANEL_ROWS files read from the results file, every failure first; the links lead from page to page', async () => {
    // 5,000 files, 100 of them failed.
    const { fake } = activateOnFake(workspaceWith(resultsOf(5000, 50)));
    await fake.run('pfc.showReport');
    const first = fake.webviews[0]!.html;
    const rows = rowsOf(first);
    expect(rows).toHaveLength(REPORT_PANEL_ROWS);
    expect(rows.slice(0, 100).every(([status]) => status === 'failed')).toBe(true);
    expect(rows[0]).toEqual(['failed', 'p3.jpg']);
    expect(rows[100]).toEqual(['corrected', 'p0.jpg']);
    expect(first).toContain(`Showing 1–${REPORT_PANEL_ROWS} of 5000 files: the failures first, then the others in order.`);
    expect(first).toContain('4900 corrected, 0 up to date, 100 failed');
    expect(pageLinks(first)).toEqual([1, 1]);
    expect(first).not.toMatch(/<script/i);

    // "Next page": the others go on where the first page stopped; the panel is the same one.
    await fake.run('pfc.showReport', 1);
    expect(fake.webviews).toHaveLength(1);
    const second = fake.webviews[0]!.html;
    const others = resultsOf(5000, 50).filter((r) => r.status !== 'failed');
    expect(rowsOf(second)).toEqual(others.slice(REPORT_PANEL_ROWS - 100, 2 * REPORT_PANEL_ROWS - 100).map((r) => ['corrected', r.rel]));
    expect(second).toContain(`Showing ${REPORT_PANEL_ROWS + 1}–${2 * REPORT_PANEL_ROWS} of 5000 files`);
    expect(new Set(pageLinks(second))).toEqual(new Set([0, 2]));

    // The last page, and a page past the end shows the last one.
    const last = 5000 / REPORT_PANEL_ROWS - 1;
    for (const page of [last, last + 7]) {
      await fake.run('pfc.showReport', page);
      const html = fake.webviews[0]!.html;
      expect(rowsOf(html).at(-1)).toEqual(['corrected', 'p4999.jpg']);
      expect(html).toContain(`Showing ${5000 - REPORT_PANEL_ROWS + 1}–5000 of 5000 files`);
      expect(new Set(pageLinks(html))).toEqual(new Set([last - 1]));
    }
  });

  test('a small run: every file on one page, no pager', async () => {
    const { fake } = activateOnFake(workspaceWith(resultsOf(12, 5)));
    await fake.run('pfc.showReport');
    const html = fake.webviews[0]!.html;
    expect(html.match(/<tr class="/g)).toHaveLength(12);
    expect(html).not.toContain('Showing');
    expect(pageLinks(html)).toEqual([]);
  });

  test('a page argument that is not a page (a keybinding\'s, say): the first page', async () => {
    const { fake } = activateOnFake(workspaceWith(resultsOf(5000, 50)));
    for (const page of [-1, -7, 1.5, '2']) {
      await fake.run('pfc.showReport', page);
      const html = fake.webviews[0]!.html;
      expect(html, String(page)).toContain(`Showing 1–${REPORT_PANEL_ROWS} of 5000 files`);
      expect(rowsOf(html)[0], String(page)).toEqual(['failed', 'p3.jpg']);
    }
  });

  test("a failure's message from the service is shown as text, never as markup", async () => {
    const results = resultsOf(12, 5).map((r) => (r.status === 'failed' ? { ...r, error: 'the service said <img src=x onerror=alert(1)> & more' } : r));
    const { fake } = activateOnFake(workspaceWith(results));
    await fake.run('pfc.showReport');
    const html = fake.webviews[0]!.html;
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('the service said &lt;img src=x onerror=alert(1)&gt; &amp; more');
  });

  test('the results file removed from the storage folder: a message, no panel, no error', async () => {
    const ws = workspaceWith(resultsOf(12, 5));
    const { fake } = activateOnFake(ws);
    const { rmSync } = await import('node:fs');
    rmSync(join(ws.storage.workspace!, 'runs'), { recursive: true });
    await fake.run('pfc.showReport');
    expect(fake.webviews).toEqual([]);
    expect(fake.shown.at(-1)).toMatchObject({ kind: 'info', text: expect.stringMatching(/no longer on disk/) });
    await fake.run('pfc.retryFailed');
    expect(fake.shown.at(-1)!.text).toBe('Perfectly Clear: the last run has no failed files.');
  });
});

describe("the previous version's last run in workspaceState", () => {
  test('the whole run stored inline is moved to a results file: the report works, the stored value becomes the small record', async () => {
    const results = resultsOf(300, 50);
    const workspaceState = new FakeMemento();
    await workspaceState.update(LAST_RUN_KEY, { inputs: ['/in'], mode: 'folder', params: { preset: 'Pro' }, summary: summaryOf(results) });
    const storage = fakeStorage();
    const { fake } = activateOnFake({ workspaceState, storage });
    await fake.run('pfc.showReport');
    expect(rowsOf(fake.webviews[0]!.html).slice(0, 6)).toEqual(results.filter((r) => r.status === 'failed').map((r) => ['failed', r.rel]));
    const record = workspaceState.get<LastRun>(LAST_RUN_KEY)!;
    expect(record).toMatchObject({ version: LAST_RUN_VERSION, inputs: ['/in'], mode: 'folder', params: { preset: 'Pro' }, summary: { corrected: 294, failed: 6 } });
    expect(Object.keys(record.summary)).not.toContain('results');
    expect(record.resultsFile.startsWith(join(storage.workspace!, 'runs'))).toBe(true);
    expect(await resultsIn(record)).toEqual(results);
    expect(workspaceState.store.get(LAST_RUN_KEY)!.length).toBeLessThan(1000);
    expect(fake.output.some((l) => l.includes("the last run's 300 result(s) moved from workspace state"))).toBe(true);
  });

  test('a value this version cannot read is dropped without an error', async () => {
    const workspaceState = new FakeMemento();
    await workspaceState.update(LAST_RUN_KEY, { inputs: 'nonsense', summary: 7 });
    const { fake } = activateOnFake({ workspaceState });
    await fake.run('pfc.showReport');
    expect(fake.shown.filter((s) => s.kind === 'error')).toEqual([]);
    expect(fake.shown.at(-1)!.text).toBe('Perfectly Clear: no run yet in this workspace.');
    expect(workspaceState.store.has(LAST_RUN_KEY)).toBe(false);
    expect(existsSync(join(fake.storage.workspace!, 'runs'))).toBe(false);
  });
});
