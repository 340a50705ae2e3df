/**
 * Greyscale files on the Web API, which takes RGB or RGBA only: a baseline
 * JPEG without a profile is sent as the same coded data in colour, on any
 * host; any other grey file as the host's RGB copy (`rgbCopy`), or, on a host
 * without one (the VS Code .vsix carries no native image library), refused
 * before anything is sent, saying so. The CLI's end-to-end run is
 * test/cli/greyscale.test.ts.
 */
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { planBatch, runBatch } from '../src/index';
import { rgbCopy } from '../src/rgb';
import { FakeBackend, jpegBytes, listAll, tempDir, writeTree } from './helpers';

/** Grey pixels with grain (a re-encode would change them). */
const grain = sharp(Buffer.from(Array.from({ length: 64 * 48 }, (_v, i) => (i * 7919) % 251)), { raw: { width: 64, height: 48, channels: 1 } }).toColourspace('b-w');

async function photos(): Promise<string> {
  const root = tempDir();
  writeTree(root, { 'bw.jpg': await grain.clone().jpeg().toBuffer(), 'bw.png': await grain.clone().png().toBuffer(), 'colour.jpg': jpegBytes(64, 48) });
  return root;
}

/** The channels of `name`'s upload, and its pixels as sRGB (sharp shows a grey image as R = G = B too). */
async function sent(backend: FakeBackend, name: string): Promise<{ channels: number | undefined; pixels: Buffer }> {
  const input = backend.calls.find((c) => c.fileName === name)!.input;
  return { channels: (await sharp(input).metadata()).channels, pixels: await sharp(input).raw().toBuffer() };
}

describe('greyscale files on the Web API', () => {
  it('without an RGB copy from the host: a baseline JPEG goes losslessly (pixels identical), a PNG fails before its upload saying why; the colour file goes on', async () => {
    const root = await photos();
    const backend = new FakeBackend();
    const summary = await runBatch(await planBatch({ inputs: [root] }), { backend, retryDelayMs: 1 });
    expect(backend.calls.map((c) => c.fileName).sort()).toEqual(['bw.jpg', 'colour.jpg']);
    const jpeg = await sent(backend, 'bw.jpg');
    expect(jpeg.channels).toBe(3);
    expect(jpeg.pixels.equals(await sharp(join(root, 'bw.jpg')).raw().toBuffer())).toBe(true);
    const png = summary.results.find((r) => r.rel === 'bw.png')!;
    expect(png).toMatchObject({ status: 'failed', errorName: 'InputUnsupportedError' });
    expect(png.error).toContain('greyscale, which the Web API does not take (RGB or RGBA only), and this installation cannot convert it');
    expect(listAll(join(root, 'corrected')).filter((f) => !f.startsWith('.pfc-manifest'))).toEqual(['bw.jpg', 'colour.jpg']);
  });

  it('with the host\'s RGB copy: the PNG goes as RGB with the same pixels, every file is corrected, and no copy is left behind', async () => {
    const root = await photos();
    const backend = new FakeBackend();
    const summary = await runBatch(await planBatch({ inputs: [root] }), { backend, retryDelayMs: 1, rgbCopy });
    expect(summary).toMatchObject({ corrected: 3, failed: 0 });
    const png = await sent(backend, 'bw.png');
    expect(png.channels).toBe(3);
    expect(png.pixels.equals(await sharp(join(root, 'bw.png')).raw().toBuffer())).toBe(true);
    expect(listAll(root).filter((f) => f.includes('.pfc-partial'))).toEqual([]);
  });
});
