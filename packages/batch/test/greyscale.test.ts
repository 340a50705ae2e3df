/**
 * Greyscale files on the Web API, which takes RGB or RGBA only: sent as the
 * host's RGB copy (`rgbCopy`), or, on a host without one (the VS Code .vsix
 * carries no native image library), refused before anything is sent, saying
 * so. The CLI's end-to-end run is test/cli/greyscale.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { planBatch, runBatch } from '../src/index';
import { rgbCopy } from '../src/rgb';
import { FakeBackend, jpegBytes, listAll, tempDir, writeTree } from './helpers';

async function photos(): Promise<string> {
  const root = tempDir();
  const grey = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#808080' } }).toColourspace('b-w').jpeg().toBuffer();
  writeTree(root, { 'bw.jpg': grey, 'colour.jpg': jpegBytes(64, 48) });
  return root;
}

describe('a greyscale JPEG on the Web API', () => {
  it('without an RGB copy from the host: fails before its upload, saying why and what to do; the colour file goes on', async () => {
    const root = await photos();
    const backend = new FakeBackend();
    const summary = await runBatch(await planBatch({ inputs: [root] }), { backend, retryDelayMs: 1 });
    expect(backend.calls.map((c) => c.fileName)).toEqual(['colour.jpg']);
    const bw = summary.results.find((r) => r.rel === 'bw.jpg')!;
    expect(bw).toMatchObject({ status: 'failed', errorName: 'InputUnsupportedError' });
    expect(bw.error).toContain('greyscale, which the Web API does not take (RGB or RGBA only), and this installation cannot convert it');
    expect(listAll(join(root, 'corrected')).filter((f) => !f.startsWith('.pfc-manifest'))).toEqual(['colour.jpg']);
  });

  it('with the host\'s RGB copy: the upload is RGB, the file is corrected, and no copy is left behind', async () => {
    const root = await photos();
    const backend = new FakeBackend();
    const summary = await runBatch(await planBatch({ inputs: [root] }), { backend, retryDelayMs: 1, rgbCopy });
    expect(summary).toMatchObject({ corrected: 2, failed: 0 });
    const sent = backend.calls.find((c) => c.fileName === 'bw.jpg')!.input;
    expect((await sharp(sent).metadata()).channels).toBe(3);
    expect(readFileSync(join(root, 'bw.jpg')).subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect(listAll(root).filter((f) => f.includes('.pfc-partial'))).toEqual([]);
  });
});
