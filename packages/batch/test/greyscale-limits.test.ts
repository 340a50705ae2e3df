/**
 * A greyscale photo's limits hold for what is sent: on the Web API it goes as an RGB copy, whose size decides the
 * size limits (background removal below 30 MB), checked before the upload; the copy is removed, the photo left as
 * it is. A container backend takes greyscale as it is: the bytes sent are the photo's own.
 */
import { readdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { planBatch, runBatch } from '../src/index';
import type { RgbCopy } from '../src/upload';
import { FakeBackend, listAll, tempDir, writeTree } from './helpers';

/** A small 8-bit grey PNG: well under every limit itself. */
async function greyPng(): Promise<Buffer> {
  return sharp(Buffer.from(Array.from({ length: 64 * 48 }, (_v, i) => (i * 7919) % 251)), { raw: { width: 64, height: 48, channels: 1 } }).toColourspace('b-w').png().toBuffer();
}

/** A host copy that comes out at `bytes` (a sparse file: the size is what the limits read), as a large photo's would. */
function copyOfSize(bytes: number): { copy: RgbCopy; made: string[] } {
  const made: string[] = [];
  const copy: RgbCopy = async (_read, _format, to) => {
    writeFileSync(to, '');
    truncateSync(to, bytes);
    made.push(to);
    return bytes;
  };
  return { copy, made };
}

describe('a greyscale photo\'s limits', () => {
  it('on the Web API, an RGB copy over background removal\'s 30 MB is refused before the upload, naming why; the copy is removed', async () => {
    const root = tempDir();
    const photo = await greyPng();
    writeTree(root, { 'scan.png': photo });
    const params = { removeBackground: true } as const;
    const backend = new FakeBackend();
    const { copy, made } = copyOfSize(32 * 1024 * 1024);

    const summary = await runBatch(await planBatch({ inputs: [root], params }), { backend, params, retryDelayMs: 1, rgbCopy: copy });

    expect(made).toHaveLength(1);
    expect(backend.calls).toHaveLength(0);
    const [result] = summary.results;
    expect(result).toMatchObject({ status: 'failed', errorName: 'InputUnsupportedError' });
    expect(result!.error).toBe(`${join(root, 'scan.png')}: greyscale, sent to the Web API as RGB (it takes RGB or RGBA only), where image is 33.6 MB; background removal takes inputs below 30 MB`);
    expect(readFileSync(join(root, 'scan.png')).equals(photo)).toBe(true);
    expect(listAll(root).filter((f) => f.includes('.pfc-partial'))).toEqual([]);
  });

  it('the same copy under the limit is what is sent', async () => {
    const root = tempDir();
    const photo = await greyPng();
    writeTree(root, { 'scan.png': photo });
    const params = { removeBackground: true } as const;
    // The service's answer: the photo in RGB (what the copy stands for).
    const answer = await sharp(photo).toColourspace('srgb').png().toBuffer();
    const backend = new FakeBackend({ body: () => answer });
    const { copy } = copyOfSize(29 * 1000 * 1000);

    const summary = await runBatch(await planBatch({ inputs: [root], params }), { backend, params, retryDelayMs: 1, rgbCopy: copy });

    expect(summary.results.map((r) => r.error)).toEqual([undefined]);
    expect(summary).toMatchObject({ corrected: 1, failed: 0 });
    expect(backend.calls.map((c) => c.input.length)).toEqual([29 * 1000 * 1000]);
  });

  it('a container backend is sent the greyscale photo itself, byte for byte, with no copy made', async () => {
    const root = tempDir();
    const photo = await greyPng();
    writeTree(root, { 'scan.png': photo });
    const backend = Object.defineProperty(new FakeBackend(), 'kind', { value: 'container' });
    const { copy, made } = copyOfSize(1000);

    const summary = await runBatch(await planBatch({ inputs: [root], backend: 'container' }), { backend, retryDelayMs: 1, rgbCopy: copy });

    expect(summary).toMatchObject({ corrected: 1, failed: 0 });
    expect(made).toEqual([]);
    expect(backend.calls.map((c) => Buffer.from(c.input).equals(photo))).toEqual([true]);
    expect(readdirSync(root).sort()).toEqual(['corrected', 'scan.png']);
  });
});
