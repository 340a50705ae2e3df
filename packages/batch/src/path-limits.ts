/**
 * The lengths a file system takes, checked before a file is sent: past them it
 * would refuse the result only at the write, after the service had done (and
 * billed) the job.
 */
import { basename } from 'node:path';
import { tempPathFor } from '@pfc/node-io';
import { CLI_TERMS, type HostTerms } from './host-terms';
import { backupHistoryPath } from './paths';
import type { PlannedFile } from './plan';

/** Longest file name, in UTF-8 bytes, that Linux and macOS file systems take (NAME_MAX). */
export const NAME_MAX_BYTES = 255;

/**
 * Longest path, in UTF-8 bytes, a file system call takes here (PATH_MAX less
 * its closing NUL): 4096 on Linux, 1024 on macOS and the BSDs. On Windows
 * Node addresses long paths itself.
 */
export const PATH_MAX_BYTES = process.platform === 'linux' ? 4095 : process.platform === 'win32' ? Infinity : 1023;

/** More than a temporary name (~100 bytes) or a place in the history (`.history/…/<16 hex><ext>`) adds to a path. */
const ROOM_BYTES = 256;

/**
 * Why `file`'s result cannot be written, or undefined: a result name over
 * NAME_MAX, or a path pfc writes for it over PATH_MAX — the result, the
 * temporary file it is written to first, and in place the kept original (with
 * its temporary file and its place in the history). `terms`: the host's names in the advice.
 */
export function unwritableReason(file: Pick<PlannedFile, 'output' | 'backup' | 'rel'>, terms: HostTerms = CLI_TERMS): { errorName: 'OutputNameTooLongError' | 'OutputPathTooLongError'; reason: string } | undefined {
  const nameBytes = Buffer.byteLength(basename(file.output));
  if (nameBytes > NAME_MAX_BYTES) {
    return { errorName: 'OutputNameTooLongError', reason: `the result's file name would be ${nameBytes} bytes, over the ${NAME_MAX_BYTES} a file name may have: ${file.output}; rename the input or choose ${terms.shorterSuffix}` };
  }
  // Most paths are far below the limit (a UTF-16 unit is at most 3 bytes): only a long one is measured.
  if (3 * Math.max(file.output.length, file.backup?.length ?? 0) + ROOM_BYTES <= PATH_MAX_BYTES) return undefined;
  const written = [file.output, tempPathFor(file.output)];
  if (file.backup) written.push(file.backup, tempPathFor(file.backup), backupHistoryPath(file.backup, file.rel, `sha256:${'0'.repeat(64)}`));
  const longest = Math.max(...written.map((p) => Buffer.byteLength(p)));
  if (longest <= PATH_MAX_BYTES) return undefined;
  const what = file.backup ? 'the result or its kept original' : 'the result';
  const hint = file.backup ? 'move the folder nearer the root or shorten its folder names' : `choose ${terms.shorterOutputPath} or shorten the folder names`;
  return { errorName: 'OutputPathTooLongError', reason: `a path pfc would write for ${what} is ${longest} bytes, over the ${PATH_MAX_BYTES} a path may have here; ${hint}` };
}
