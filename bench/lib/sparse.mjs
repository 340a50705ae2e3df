/** Huge test inputs that cost no disk space. */
import { closeSync, ftruncateSync, openSync, writeSync } from 'node:fs';

/**
 * A sparse file of `bytes` that sniffs as MP4 (an `ftyp` box, then a hole):
 * no disk space, read at memory speed, so upload memory can be measured at
 * any size.
 */
export function sparseMp4(file, bytes) {
  const fd = openSync(file, 'w');
  const box = Buffer.alloc(32);
  box.writeUInt32BE(32, 0);
  box.write('ftypisom', 4, 'latin1');
  box.write('isomiso2avc1mp41', 16, 'latin1');
  writeSync(fd, box, 0, box.length, 0);
  ftruncateSync(fd, bytes);
  closeSync(fd);
}
