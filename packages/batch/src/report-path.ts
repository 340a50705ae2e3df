/**
 * Where a report may be written: a new `.html` file, or one an earlier pfc
 * report wrote (it carries `REPORT_MARKER`); and its companion folder
 * (`<name>.files/`, for a larger run's data) new or one pfc made. A shell glob mistake such as
 * `pfc correct --report *.jpg` then cannot turn a photo into a web page.
 * Checked before the run (so nothing is sent) and again when writing.
 */
import { lstat, open } from 'node:fs/promises';
import { resolve } from 'node:path';
import { BatchUsageError } from './errors';
import { realPathOf } from './realpaths';
import { checkCompanionDir } from './report-store';

/** Marker in the `<head>` of every report page; a file carrying it was written by pfc. */
export const REPORT_MARKER = '<meta name="generator" content="pfc batch report">';

/** Bytes read from an existing file to look for the marker. */
const HEAD_BYTES = 4096;

/** Whether a file's first bytes (at least its first {@link HEAD_BYTES}) are those of a report page pfc wrote. */
export function isReportPage(head: Uint8Array): boolean {
  return Buffer.from(head.buffer, head.byteOffset, Math.min(head.length, HEAD_BYTES)).toString('utf8').includes(REPORT_MARKER);
}

/**
 * The real path to write the report to, or a `BatchUsageError` (`bad-report`)
 * when the path does not end in `.html`, or is an existing file (or link,
 * folder) that no pfc report wrote, or when its companion folder exists and
 * pfc did not make it.
 */
export async function checkReportPath(path: string): Promise<string> {
  const given = resolve(path);
  if (!/\.html?$/i.test(given)) throw new BatchUsageError(`--report must name an .html file (got ${path}); the report is never written over other files`, 'bad-report');
  const dest = await realPathOf(given);
  await checkCompanionDir(dest, path);
  const info = await lstat(dest).catch(() => undefined);
  if (!info) return dest;
  if (!info.isFile()) throw new BatchUsageError(`--report ${path} is not a file`, 'bad-report');
  if (!(await carriesMarker(dest))) {
    throw new BatchUsageError(`--report would overwrite ${dest}, which is not a report pfc wrote; choose a new file name`, 'bad-report');
  }
  return dest;
}

async function carriesMarker(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await fh.read(buf, 0, HEAD_BYTES, 0);
    return isReportPage(buf.subarray(0, bytesRead));
  } finally {
    await fh.close();
  }
}
