import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planBatch, runBatch } from '../src/index';
import { FakeBackend, jpegBytes, tempDir, writeTree } from './helpers';

describe('runBatch never replaces a file it did not write', () => {
  it('leaves a file that appears at the output path while the input is corrected (OutputExistsError), and keeps it', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': jpegBytes(100, 100), 'b.jpg': jpegBytes(120, 100) });
    const out = join(root, 'corrected');
    const backend = new FakeBackend({ onCall: (name) => name === 'a.jpg' && writeTree(out, { 'a.jpg': 'the user put this here' }) });
    const plan = await planBatch({ inputs: [root] });
    const summary = await runBatch(plan, { backend, retryDelayMs: 1 });
    expect(summary.results.map((r) => [r.rel, r.status, r.errorName])).toEqual([['a.jpg', 'failed', 'OutputExistsError'], ['b.jpg', 'corrected', undefined]]);
    expect(readFileSync(join(out, 'a.jpg'), 'utf8')).toBe('the user put this here');
  });

  it('in place, leaves a file the user changed while it was corrected (its original kept)', async () => {
    const root = tempDir();
    const original = jpegBytes(100, 100);
    writeTree(root, { 'a.jpg': original });
    const backend = new FakeBackend({ onCall: () => writeFileSync(join(root, 'a.jpg'), 'edited meanwhile') });
    const plan = await planBatch({ inputs: [root], output: { kind: 'in-place' } });
    const summary = await runBatch(plan, { backend, retryDelayMs: 1 });
    expect(summary.results[0]).toMatchObject({ status: 'failed', errorName: 'ChangedWhileCorrectingError' });
    expect(readFileSync(join(root, 'a.jpg'), 'utf8')).toBe('edited meanwhile');
    expect(readFileSync(join(root, '.pfc-originals/a.jpg')).equals(original)).toBe(true);
  });
});
