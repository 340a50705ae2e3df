/**
 * An iPhone export: each Live Photo is a still (HEIC, or JPEG with "Most Compatible") and a short QuickTime clip of
 * the same name. Met in a folder, the clip is the photo's motion, not a video to correct and pay for: left out,
 * saying so. A video with no still of its name, or a clip given as an input itself, is corrected.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planBatch, runBatch } from '../src/index';
import { livePhotoStills } from '../src/live-photos';
import { FakeBackend, jpegBytes, tempDir, writeTree } from './helpers';

/** The first bytes of a QuickTime movie (`ftyp` brand `qt  `): what planning reads of a video. */
const MOVIE = Buffer.concat([Buffer.from([0, 0, 0, 20]), Buffer.from('ftypqt  ', 'latin1'), Buffer.alloc(8)]);

function iphoneExport(): string {
  const root = tempDir();
  writeTree(root, {
    'IMG_0001.JPG': jpegBytes(96, 64, { filler: 'still one' }),
    'IMG_0001.MOV': MOVIE,
    'IMG_0002.HEIC': Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypheic', 'latin1'), Buffer.alloc(12)]),
    'IMG_0002.MOV': MOVIE,
    // A video on its own: filmed, not a Live Photo.
    'IMG_0003.MOV': MOVIE,
  });
  return root;
}

describe('Live Photos in a folder', () => {
  it('their clips are left out, naming the still; the still and a video of its own are planned', async () => {
    const root = iphoneExport();
    const plan = await planBatch({ inputs: [root] });

    expect(plan.files.map((f) => f.rel)).toEqual(['IMG_0001.JPG', 'IMG_0003.MOV']);
    expect(plan.leftOut.kept.filter((s) => s.code === 'live-photo').map((s) => [s.path.slice(root.length + 1), s.reason])).toEqual([
      ['IMG_0001.MOV', 'the motion of the Live Photo IMG_0001.JPG, left out (it would be corrected and billed as a video); give this file itself as an input to correct it'],
      ['IMG_0002.MOV', 'the motion of the Live Photo IMG_0002.HEIC, left out (it would be corrected and billed as a video); give this file itself as an input to correct it'],
    ]);
  });

  it('nothing is sent for them in a run; a clip given itself as an input is corrected', async () => {
    const root = iphoneExport();
    const backend = new FakeBackend();
    await runBatch(await planBatch({ inputs: [root] }), { backend, retryDelayMs: 1 });
    expect(backend.calls.map((c) => c.fileName).sort()).toEqual(['IMG_0001.JPG', 'IMG_0003.MOV']);

    const alone = await planBatch({ inputs: [join(root, 'IMG_0001.MOV')], output: { kind: 'mirror', dir: join(root, 'clips') } });
    expect(alone.files.map((f) => f.rel)).toEqual(['IMG_0001.MOV']);
  });

  it('pairs by name whatever the case of the extensions, and only videos with a still', () => {
    expect([...livePhotoStills(['a.heic', 'A.mov', 'b.png', 'b.mov', 'c.jpeg', 'C.MP4', 'd.mov'])]).toEqual([['A.mov', 'a.heic'], ['C.MP4', 'c.jpeg']]);
  });
});
