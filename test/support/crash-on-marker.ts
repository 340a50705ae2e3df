/**
 * A photo that crashes the emulator each time it is sent: a script for
 * `node --require` that makes an emulator process die outright (SIGSEGV, as a
 * native fault in an image library would) when it stores a photo holding a
 * marker, and photos that hold it. Emulator processes inherit NODE_OPTIONS;
 * the script acts only in a process with an IPC channel (the emulator's child
 * process), so a CLI given the same NODE_OPTIONS is unaffected.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The marker {@link crashOnMarker}'s emulator crashes on by default. */
export const CRASH_MARKER = Buffer.from('PFC-CRASH-HERE');

/** The JPEG with a comment segment holding {@link CRASH_MARKER}, first after its start (so in the first chunk sent). */
export function withCrashMarker(jpeg: Buffer): Buffer {
  const text = Buffer.from(CRASH_MARKER);
  const length = Buffer.alloc(2);
  length.writeUInt16BE(text.length + 2);
  return Buffer.concat([jpeg.subarray(0, 2), Buffer.from([0xff, 0xfe]), length, text, jpeg.subarray(2)]);
}

/** Writes the `--require` script into `dir` and returns its path. */
export function crashOnMarker(dir: string, marker = CRASH_MARKER): string {
  const script = join(dir, `crash-on-${marker.toString('hex')}.cjs`);
  writeFileSync(
    script,
    `if (process.send) {
  const fs = require('node:fs');
  const marker = Buffer.from('${marker.toString('hex')}', 'hex');
  const write = fs.WriteStream.prototype.write;
  fs.WriteStream.prototype.write = function (chunk, ...rest) {
    if (Buffer.isBuffer(chunk) && chunk.includes(marker)) process.kill(process.pid, 'SIGSEGV');
    return write.call(this, chunk, ...rest);
  };
}
`,
  );
  return script;
}
