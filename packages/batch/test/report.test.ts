import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planBatch, runBatch } from '../src/index';
import { writeReport } from '../src/report';
import { FakeBackend, faults, tempDir } from './helpers';
import { readReport } from './report-reader';

const SAMPLES = join(import.meta.dirname, '../../../samples');

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
    const report = readReport(path);
    const html = report.html;

    // A run that fits one page of cards is one self-contained file: every row in the page, no folder beside it.
    expect(report.inline.sort()).toEqual(['c0', 'f0', 'folders']);
    expect(report.meta.base).toBe('');
    expect(existsSync(join(root, 'report/index.files'))).toBe(false);
    const rows = new Map([...report.list('f'), ...report.list('c')].map((r) => [r[0], r]));
    expect(rows.size).toBe(3);
    const thumbs = (rel: string) => [rows.get(rel)![12], rows.get(rel)![13]].map((t) => (t === 0 ? undefined : t[0].slice(0, 23)));
    // astronaut and chelsea: before and after; coffee failed: before only.
    expect(thumbs('a <b>/astronaut.jpg')).toEqual(['data:image/webp;base64,', 'data:image/webp;base64,']);
    expect(thumbs('chelsea.png')).toEqual(['data:image/webp;base64,', 'data:image/webp;base64,']);
    expect(thumbs('coffee.jpg')).toEqual(['data:image/webp;base64,', undefined]);
    expect(html).not.toMatch(/(src|href)="(https?:|\/\/)/);
    expect(html).not.toContain('a <b>');
    expect(html).toContain('<code>outputQuality=80</code>');
    expect(rows.get('coffee.jpg')![10]).toMatch(/job job-1 FAILED: could not decode the image/);
    expect(rows.get('a <b>/astronaut.jpg')![2]).toBe('../a%20%3Cb%3E/astronaut.jpg');
    expect(report.meta.params[rows.get('coffee.jpg')![9]]).toEqual([['outputQuality', '80']]);
  });

  it('lists the photos left out before thousands of sidecars, which would push them past the rows shown', async () => {
    const root = tempDir();
    for (let i = 0; i < 1200; i++) writeFileSync(join(root, `IMG_${String(i).padStart(4, '0')}.xmp`), '<x:xmpmeta/>');
    writeFileSync(join(root, 'zz.HEIC'), Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypheic', 'latin1'), Buffer.alloc(12)]));
    const summary = await runBatch(await planBatch({ inputs: [root] }), { backend: new FakeBackend() });
    const { html } = readReport(await writeReport(join(root, 'report.html'), summary, { backend: 'fake', params: {} }));
    expect(html).toContain('zz.HEIC</td><td>HEIC/HEIF image');
    expect(html).toContain('and 201 more');
  });
});
