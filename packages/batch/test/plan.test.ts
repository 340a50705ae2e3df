import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BatchUsageError, MANIFEST_FILE, planBatch } from '../src/index';
import { jpegBytes, pngBytes, tempDir, writeTree } from './helpers';

function tree(): string {
  const root = tempDir();
  writeTree(root, {
    'a.jpg': jpegBytes(800, 600),
    'nested/deeper/b.png': pngBytes(640, 480),
    'nested/c.JPEG': jpegBytes(300, 200),
    'scan': jpegBytes(500, 500), // no extension: found by content
    'notes.txt': 'hello',
    'fake.jpg': 'not a jpeg',
    'tiny.png': pngBytes(10, 10),
    '.hidden/d.jpg': jpegBytes(100, 100),
    '.DS_Store': 'x',
    'corrected/old.jpg': jpegBytes(100, 100),
  });
  return root;
}

describe('planBatch', () => {
  it('mirrors a nested tree under <input>/corrected and says why each other path is left out (its own output folder is no such path)', async () => {
    const root = tree();
    const plan = await planBatch({ inputs: [root] });
    const out = join(root, 'corrected');
    expect(plan.outputRoots).toEqual([out]);
    // A folder's own files in name order, then its subfolders (planning hands on one folder at a time).
    expect(plan.files.map((f) => [f.rel, f.output])).toEqual([
      ['a.jpg', join(out, 'a.jpg')],
      ['scan', join(out, 'scan.jpg')],
      ['nested/c.JPEG', join(out, 'nested/c.JPEG')],
      ['nested/deeper/b.png', join(out, 'nested/deeper/b.png')],
    ]);
    const why = Object.fromEntries(plan.leftOut.kept.map((s) => [s.path.slice(root.length + 1), s.code]));
    expect(why).toEqual({
      '.DS_Store': 'hidden',
      '.hidden': 'hidden',
      'fake.jpg': 'unsupported',
      'notes.txt': 'unsupported',
      'tiny.png': 'over-limit',
    });
    expect(plan.totalBytes).toBe(plan.files.reduce((n, f) => n + f.size, 0));
  });

  it('leaves out other applications\' folders met below the input (photo libraries, app bundles, a drive\'s recycle bin), each said; named itself, such a folder is corrected', async () => {
    const root = tempDir();
    const photo = jpegBytes(100, 100);
    writeTree(root, {
      'trip/a.jpg': photo,
      'My Photos Library/c.jpg': photo,
      'Photos Library.photoslibrary/originals/0/IMG_1.jpeg': photo,
      'Photos Library.photoslibrary/resources/derivatives/masters/0/IMG_1_4_5005_c.jpeg': photo,
      'iPhoto Library.photolibrary/Masters/2014/d.jpg': photo,
      'Lightroom/Lightroom Catalog Previews.lrdata/0/e.jpg': photo,
      'Photo Booth Library/Pictures/Photo on 1.jpg': photo,
      'Preview.APP/Contents/Resources/icon.png': pngBytes(256, 256),
      '$RECYCLE.BIN/S-1-5-21/$RABC.jpg': photo,
      'System Volume Information/f.jpg': photo,
    });
    const plan = await planBatch({ inputs: [root] });
    expect(plan.files.map((f) => f.rel).sort()).toEqual(['My Photos Library/c.jpg', 'trip/a.jpg']);
    const why = Object.fromEntries(plan.leftOut.kept.map((s) => [s.path.slice(root.length + 1), [s.code, s.reason.split(':')[0]]]));
    expect(why).toEqual({
      'Photos Library.photoslibrary': ['app-folder', 'an Apple Photos library'],
      'iPhoto Library.photolibrary': ['app-folder', 'an iPhoto library'],
      'Lightroom/Lightroom Catalog Previews.lrdata': ['app-folder', "Lightroom's previews"],
      'Photo Booth Library': ['app-folder', 'the Photo Booth library'],
      'Preview.APP': ['app-folder', 'an application bundle'],
      '$RECYCLE.BIN': ['app-folder', "Windows' recycle bin"],
      'System Volume Information': ['app-folder', 'a Windows system folder'],
    });
    expect(plan.leftOut.kept[0]?.reason).toContain('export photos from it, or give this folder itself as the input');

    const named = await planBatch({ inputs: [join(root, 'Photos Library.photoslibrary')], output: { kind: 'mirror', dir: join(root, 'exported') } });
    expect(named.files.map((f) => f.rel).sort()).toEqual(['originals/0/IMG_1.jpeg', 'resources/derivatives/masters/0/IMG_1_4_5005_c.jpeg']);
  });

  it('leaves out the user\'s Library (macOS) and AppData (Windows) when the home folder is corrected; a folder so named elsewhere is the user\'s', async () => {
    const home = tempDir();
    const photo = jpegBytes(100, 100);
    writeTree(home, { 'Library/Caches/thumb.jpg': photo, 'AppData/Local/cache.jpg': photo, 'Pictures/a.jpg': photo, 'Pictures/Library/b.jpg': photo });
    const was = process.env.HOME;
    process.env.HOME = home;
    try {
      const plan = await planBatch({ inputs: [home] });
      expect(plan.files.map((f) => f.rel).sort()).toEqual(['Pictures/Library/b.jpg', 'Pictures/a.jpg']);
      expect(plan.leftOut.kept.filter((s) => s.code === 'app-folder').map((s) => [s.path.slice(home.length + 1), s.reason.split(' (')[0]])).toEqual([
        ['AppData', "the user's AppData"],
        ['Library', "the user's Library"],
      ]);
    } finally {
      process.env.HOME = was;
    }
  });

  it('names what a left-out photo or video is by content, and what to do; an empty file and a camera raw file are said to be; anything else is "not a JPEG, PNG, MP4 or MOV"', async () => {
    const root = tempDir();
    const ftyp = (brand: string) => Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from(`ftyp${brand}`, 'latin1'), Buffer.alloc(12)]);
    const webm = Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x82, 0x84]), Buffer.from('webm', 'latin1'), Buffer.alloc(16)]);
    // Names that do not tell: the reason comes from the bytes.
    writeTree(root, { 'IMG_0001.HEIC': ftyp('heic'), 'download.jpg': webm, 'scan.tif': Buffer.from('II*\0 tiff....', 'latin1'), 'notes.txt': 'hello', 'IMG_0002.jpg': '', 'DSC_0003.NEF': Buffer.from('MM\0*\0\0\0\x08 nikon', 'latin1'), 'P0004.RAF': 'FUJIFILMCCD-RAW 0201' });
    const plan = await planBatch({ inputs: [root] });
    const why = Object.fromEntries(plan.leftOut.kept.map((s) => [s.path.slice(root.length + 1), [s.code, s.reason]]));
    expect(why).toEqual({
      'IMG_0001.HEIC': ['unsupported', 'HEIC/HEIF image: the service corrects JPEG and PNG images only; save it as JPEG or PNG to correct it'],
      'download.jpg': ['unsupported', 'WebM video: the service corrects MP4 and MOV videos only; convert it to MP4 to correct it'],
      'scan.tif': ['unsupported', 'TIFF image: the service corrects JPEG and PNG images only; save it as JPEG or PNG to correct it'],
      'notes.txt': ['unsupported', 'not a JPEG, PNG, MP4 or MOV file (judged by content)'],
      'IMG_0002.jpg': ['unsupported', 'empty file (0 bytes): nothing to correct'],
      // Camera raw files, TIFF inside (NEF) or a maker's own (RAF): named as the photographer knows them.
      'DSC_0003.NEF': ['unsupported', 'camera raw photo (NEF): the service corrects JPEG and PNG images only; export it as JPEG or PNG from your raw editor to correct it'],
      'P0004.RAF': ['unsupported', 'camera raw photo (RAF): the service corrects JPEG and PNG images only; export it as JPEG or PNG from your raw editor to correct it'],
    });
  });

  it('mirrors under --out, from the common folder of several inputs', async () => {
    const root = tree();
    const out = join(tempDir(), 'out');
    const plan = await planBatch({ inputs: [join(root, 'nested/deeper'), join(root, 'a.jpg')], output: { kind: 'mirror', dir: out } });
    expect(plan.files.map((f) => f.output)).toEqual([join(out, 'nested/deeper/b.png'), join(out, 'a.jpg')]);
  });

  it('skips folders holding the manifest of an earlier mirror run', async () => {
    const root = tree();
    writeTree(root, { [`exports/${MANIFEST_FILE}`]: '{"type":"header","format":"pfc-manifest","version":1,"mode":"mirror"}\n', 'exports/x.jpg': jpegBytes(100, 100) });
    const plan = await planBatch({ inputs: [root] });
    expect(plan.leftOut.kept.find((s) => s.path === join(root, 'exports'))?.code).toBe('output-folder');
  });

  it('changes extensions with outputType and keeps colliding names apart', async () => {
    const root = tempDir();
    writeTree(root, { 'p.jpg': jpegBytes(100, 100), 'p.png': pngBytes(100, 100), 'q.png': pngBytes(100, 100) });
    const plan = await planBatch({ inputs: [root], params: { outputType: 'jpg' } });
    expect(plan.files.map((f) => f.output.slice(root.length + 1))).toEqual(['corrected/p.jpg', 'corrected/p.png.jpg', 'corrected/q.jpg']);
  });

  it('suffix mode writes beside the input and skips earlier results', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': jpegBytes(100, 100), 'a_pfc.jpg': jpegBytes(100, 100) });
    const plan = await planBatch({ inputs: [root], output: { kind: 'suffix', suffix: '_pfc' } });
    expect(plan.files.map((f) => f.output)).toEqual([join(root, 'a_pfc.jpg')]);
    expect(plan.leftOut.kept).toEqual([expect.objectContaining({ path: join(root, 'a_pfc.jpg'), code: 'suffix-output' })]);
    expect(plan.outputRoots).toEqual([root]);
  });

  it('in-place mode plans backups under .pfc-originals', async () => {
    const root = tempDir();
    writeTree(root, { 'sub/a.jpg': jpegBytes(100, 100) });
    const plan = await planBatch({ inputs: [root], output: { kind: 'in-place' } });
    expect(plan.files[0]).toMatchObject({ input: join(root, 'sub/a.jpg'), output: join(root, 'sub/a.jpg'), backup: join(root, '.pfc-originals/sub/a.jpg') });
  });

  it('does not follow links to folders, and plans a file reached twice once', async () => {
    const root = tree();
    symlinkSync(join(root, 'nested'), join(root, 'link'));
    const plan = await planBatch({ inputs: [root, join(root, 'a.jpg')] });
    expect(plan.leftOut.kept.find((s) => s.path === join(root, 'link'))?.code).toBe('symlink');
    expect(plan.leftOut.kept.find((s) => s.path === join(root, 'a.jpg'))?.code).toBe('duplicate');
  });

  it('refuses missing inputs and outputs that would overwrite inputs', async () => {
    const root = tree();
    await expect(planBatch({ inputs: [join(root, 'nope')] })).rejects.toThrow(BatchUsageError);
    await expect(planBatch({ inputs: [join(root, 'nope')] })).rejects.toThrow(/no such file or folder: .*nope/);
    await expect(planBatch({ inputs: [root], output: { kind: 'mirror', dir: root } })).rejects.toThrow(/is the input folder/);
    const parent = join(root, '..');
    mkdirSync(join(root, 'x'));
    writeFileSync(join(root, 'x/y.jpg'), jpegBytes(100, 100));
    await expect(planBatch({ inputs: [join(root, 'x'), join(root, 'a.jpg')], output: { kind: 'mirror', dir: parent } })).rejects.toThrow(/inside the output folder|would overwrite/);
  });

  it('says why a link given as an input cannot be followed (a loop, a missing target), as for a folder\'s own links', async () => {
    const root = tree();
    symlinkSync('loop.jpg', join(root, 'loop.jpg'));
    symlinkSync('nowhere.jpg', join(root, 'broken.jpg'));
    await expect(planBatch({ inputs: [join(root, 'loop.jpg')] })).rejects.toThrow(`${join(root, 'loop.jpg')}: symbolic link loop`);
    await expect(planBatch({ inputs: [join(root, 'broken.jpg')] })).rejects.toThrow(`${join(root, 'broken.jpg')}: broken symbolic link (its target nowhere.jpg does not exist)`);
    // Each input with its own reason; the ones that do not exist together.
    const all = planBatch({ inputs: [join(root, 'nope'), join(root, 'loop.jpg'), join(root, 'nope2'), join(root, 'a.jpg')] });
    await expect(all).rejects.toThrow(`no such file or folder: ${join(root, 'nope')}, ${join(root, 'nope2')}; ${join(root, 'loop.jpg')}: symbolic link loop`);
  });

  it('leaves videos out on backends that take images only', async () => {
    const root = tempDir();
    writeTree(root, { 'clip.mp4': Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypisom\0\0\0\0isommp42', 'latin1')]) });
    expect((await planBatch({ inputs: [root], backend: 'web' })).files).toHaveLength(1);
    expect((await planBatch({ inputs: [root], backend: 'container' })).leftOut.kept[0]?.code).toBe('over-limit');
  });

  it('leaves out a 32×32 image on the Web API and the emulator ("larger than 32x32"), as the README\'s over-limit row says, and takes it on the colour container', async () => {
    const root = tempDir();
    writeTree(root, { 'edge.png': pngBytes(32, 32), 'ok.png': pngBytes(33, 33) });
    for (const backend of ['web', 'emulator'] as const) {
      const plan = await planBatch({ inputs: [root], backend });
      expect(plan.files.map((f) => f.rel), backend).toEqual(['ok.png']);
      expect(plan.leftOut.kept.map((s) => [s.code, s.reason]), backend).toEqual([['over-limit', 'image is 32×32 px; the Web API needs more than 32 px on each side']]);
    }
    expect((await planBatch({ inputs: [root], backend: 'container' })).files.map((f) => f.rel).sort()).toEqual(['edge.png', 'ok.png']);
  });
});
