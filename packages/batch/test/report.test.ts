import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planBatch, runBatch } from '../src/index';
import { writeReport } from '../src/report';
import { FakeBackend, faults, tempDir } from './helpers';

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
    const html = readFileSync(path, 'utf8');

    const imgs = [...html.matchAll(/<img data-role="(before|after)" src="([^"]+)"/g)].map((m) => [m[1], m[2]!.slice(0, 23)]);
    // astronaut and chelsea: before and after; coffee failed: before only.
    expect(imgs).toEqual([
      ['before', 'data:image/webp;base64,'], ['after', 'data:image/webp;base64,'],
      ['before', 'data:image/webp;base64,'], ['after', 'data:image/webp;base64,'],
      ['before', 'data:image/webp;base64,'],
    ]);
    expect(html).not.toMatch(/src="(https?:|\/\/)/);
    expect(html).toContain('a &#60;b&#62;/astronaut.jpg');
    expect(html).not.toContain('a <b>');
    expect(html).toContain('<code>outputQuality=80</code>');
    expect(html).toMatch(/job job-1 FAILED: could not decode the image/);
    expect(html).toContain('href="../a%20%3Cb%3E/astronaut.jpg"');
  });
});
