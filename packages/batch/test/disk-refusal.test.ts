/**
 * A file system's refusal of a write (full, over quota, read-only) as the run
 * says it: of the folder written to, not as the bare system message. EDQUOT
 * needs quotas to happen for real, so it is given here as the error a write
 * would throw; the CLI's full-disk tests run ENOSPC and EROFS on real mounts.
 */
import { describe, expect, it } from 'vitest';
import { asDiskRefusal, DiskRefusedError } from '../src/errors';
import { worthAnotherAttempt } from '../src/index';

/** The error Node's fs throws for `code` on a write to `path` (or, without one, on a write through a handle). */
function fsError(code: string, message: string, path?: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${message}${path ? `, open '${path}'` : ', write'}`), { code, ...(path ? { path } : {}) });
}

describe('asDiskRefusal', () => {
  it.each([
    ['ENOSPC', 'no space left on device', 'no space left on the disk holding /out/a (ENOSPC)'],
    ['EDQUOT', 'disk quota exceeded', 'disk quota exceeded on the disk holding /out/a (EDQUOT)'],
    ['EROFS', 'read-only file system', 'the file system holding /out/a is read-only (EROFS)'],
  ])('says %s of the folder written to, keeping the code', (code, raw, said) => {
    const err = asDiskRefusal(fsError(code, raw), '/out/a');
    expect(err).toBeInstanceOf(DiskRefusedError);
    expect((err as DiskRefusedError).message).toBe(said);
    expect((err as DiskRefusedError).code).toBe(code);
    expect(worthAnotherAttempt(err)).toBe(false);
  });

  it('names the folder of the path the error names, over the one given', () => {
    const err = asDiskRefusal(fsError('ENOSPC', 'no space left on device', '/backups/b/.x.jpg.1-2.pfc-partial'), '/out/a') as DiskRefusedError;
    expect(err.folder).toBe('/backups/b');
  });

  it('leaves any other error as it is', () => {
    const denied = fsError('EACCES', 'permission denied', '/out/a/x.jpg');
    expect(asDiskRefusal(denied, '/out/a')).toBe(denied);
    const plain = new Error('boom');
    expect(asDiskRefusal(plain, '/out/a')).toBe(plain);
    expect(asDiskRefusal(undefined, '/out/a')).toBeUndefined();
  });

  it('does not retry a file over the disk quota (nor on a full disk)', () => {
    expect(worthAnotherAttempt(fsError('EDQUOT', 'disk quota exceeded'))).toBe(false);
    expect(worthAnotherAttempt(fsError('ENOSPC', 'no space left on device'))).toBe(false);
  });
});
