import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planBatch, runBatch } from '../src/index';
import { writeReport } from '../src/report';
import { FakeBackend, faults, tempDir } from './helpers';

const SAMPLES = join(import.meta.dirname, '../../../samples');

/** The rows the report's script shows. */
function reportData(html: string): { rows: unknown[][]; thumbs: [string, number, number][]; params: [string, string][][] } {
  const json = /<script type="application\/json" id="pfc-report-data">(.*?)<\/script>/s.exec(html)?.[1];
  expect(json).toBeDefined();
  return JSON.parse(json!) as ReturnType<typeof reportData>;
}

describe('writeReport', () => {
  it('writes one self-contained page with before/after thumbnails, parameters, timing and failures', async () => {
    const root = tempDir();
    mkdirSync(join(root, 'a <b>'));
    copyFileSync(join(SAMPLES, 'portraits/astronaut.jpg'), join(root, 'a <b>/astronaut.jpg'));
    copyFileSync(join(SAMPLES, 'objects/chelsea.png'), join(root, 'chelsea.png'));
    copyFileSync(join(SAMPLES, 'objects/coffee.jpg'), join(root, 'coffee.jpg'));
    const backend = new FakeBackend({ fault: (name) => { if (name === 'coffee.jpg') throw faults.jobFailed(); } });
    const plan = await planBatch({ inputs: [root] });
    const summary = await runBatch(plan, { backend, params: { outputQuality: 80 } });
    const path = await writeReport(join(root, 'report/index.html'), summary, { backend: 'fake', params: { outputQuality: 80 } });
    const html = readFileSync(path, 'utf8');

    const data = reportData(html);
    const rows = new Map(data.rows.map((r) => [r[0], r]));
    const thumbs = (rel: string) => [rows.get(rel)![12], rows.get(rel)![13]].map((t) => (t === -1 ? undefined : data.thumbs[t as number]![0].slice(0, 23)));
    // astronaut and chelsea: before and after; coffee failed: before only.
    expect(thumbs('a <b>/astronaut.jpg')).toEqual(['data:image/webp;base64,', 'data:image/webp;base64,']);
    expect(thumbs('chelsea.png')).toEqual(['data:image/webp;base64,', 'data:image/webp;base64,']);
    expect(thumbs('coffee.jpg')).toEqual(['data:image/webp;base64,', undefined]);
    expect(html).not.toMatch(/(src|href)="(https?:|\/\/)/);
    expect(html).not.toContain('a <b>');
    expect(html).toContain('<code>outputQuality=80</code>');
    expect(rows.get('coffee.jpg')![10]).toMatch(/job job-1 FAILED: could not decode the image/);
    expect(rows.get('a <b>/astronaut.jpg')![2]).toBe('../a%20%3Cb%3E/astronaut.jpg');
    expect(data.params[rows.get('coffee.jpg')![9] as number]).toEqual([['outputQuality', '80']]);
  });
});
