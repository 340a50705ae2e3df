/**
 * The write check before anything is sent: a folder that cannot take files is
 * refused, except one whose every file was planned from its manifest (a rerun
 * of up-to-date files), which an earlier run wrote and is not tried again.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkOutputWritable, LeftOutRecord, type BatchPlan, type PlannedFile } from '../src/index';

function planOf(files: Partial<PlannedFile>[]): BatchPlan {
  const media = { format: 'jpeg', fileType: 'image', contentType: 'image/jpeg' } as PlannedFile['media'];
  return {
    files: files.map((f, i) => ({ input: `/in/${i}.jpg`, output: '', outputRoot: '', rel: `${i}.jpg`, size: 1, mtimeMs: 1, media, ...f })),
    leftOut: new LeftOutRecord(), outputRoots: [], mode: { kind: 'mirror' }, totalBytes: files.length,
  };
}

describe('checkOutputWritable', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pfc-preflight-'));
  // A file where a folder should be: nothing can be written below it.
  writeFileSync(join(dir, 'a-file'), 'not a folder');
  const blocked = join(dir, 'a-file', 'out', 'p.jpg');

  it('refuses a folder that cannot be written when a file there is new to the manifest', async () => {
    await expect(checkOutputWritable(planOf([{ output: blocked, mediaFromManifest: true }, { output: blocked }]))).rejects.toThrow(/a-file is a file, not a folder/);
  });

  it('does not try folders whose every file was planned from the manifest', async () => {
    await expect(checkOutputWritable(planOf([{ output: blocked, mediaFromManifest: true }, { output: blocked, mediaFromManifest: true }]))).resolves.toBeUndefined();
  });
});
