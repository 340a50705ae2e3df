/** Checks on the files a run left on disk: decodable images of the right size, no partial files, originals intact. */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { expect } from 'vitest';
import { SAMPLES } from './session';

export function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** Every file below `dir`, as paths relative to it with `/`. */
export function filesBelow(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string, prefix: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name), `${prefix}${e.name}/`);
      else out.push(`${prefix}${e.name}`);
    }
  };
  walk(dir, '');
  return out.sort();
}

/** The output decodes as an image of the input's format and size. */
export async function expectCorrectedImage(input: string, output: string): Promise<void> {
  expect(existsSync(output), `${output} exists`).toBe(true);
  const [a, b] = await Promise.all([sharp(input).metadata(), sharp(output).metadata()]);
  expect(b.format, output).toBe(a.format);
  expect({ width: b.width, height: b.height }, output).toEqual({ width: a.width, height: a.height });
  // Decode every pixel, not just the header: a truncated file fails here.
  const { info } = await sharp(output).raw().toBuffer({ resolveWithObject: true });
  expect(info.width).toBe(a.width);
}

/** Where an input below the album was copied from: the sample of the same relative path. */
const sampleOf = (rel: string): string => join(SAMPLES, rel);

/** The inputs below `dir` are byte-identical to the files they were copied from (`sourceOf`; default the samples). */
export function expectOriginalsUntouched(dir: string, rels: readonly string[], sourceOf = sampleOf): void {
  for (const rel of rels) expect(sha256(join(dir, rel)), rel).toBe(sha256(sourceOf(rel)));
}

/** No temporary (`.pfc-partial`) file anywhere below `dir`. */
export function expectNoPartials(dir: string): void {
  expect(filesBelow(dir).filter((f) => f.includes('.pfc-partial'))).toEqual([]);
}

/**
 * A folder run into `out` beside the inputs in `album`: exactly the samples came
 * out, each a decodable image of its input's size that differs from it, the
 * originals are byte-identical to the samples, and no temporary file is left.
 */
export async function expectFolderCorrected(album: string, out: string, rels: readonly string[], sourceOf = sampleOf): Promise<void> {
  expect(filesBelow(out).filter((f) => !f.split('/').pop()!.startsWith('.'))).toEqual([...rels].sort());
  for (const rel of rels) {
    await expectCorrectedImage(join(album, rel), join(out, rel));
    expect(sha256(join(out, rel)), rel).not.toBe(sha256(join(album, rel)));
  }
  expectOriginalsUntouched(album, rels, sourceOf);
  expectNoPartials(album);
}
