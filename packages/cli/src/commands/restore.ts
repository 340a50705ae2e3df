/** `pfc restore <folder> [files...]`: put back the originals an in-place run kept, and say what was restored. */
import { resolve } from 'node:path';
import { BatchUsageError, restoreOriginals } from '@pfc/batch';
import { parse } from '../args';
import { RESTORE_HELP } from '../help';
import { type CliIo, EXIT, UsageError } from '../io';
import { shown } from '../render';

export async function restoreCommand(argv: string[], io: CliIo): Promise<number> {
  const { values: v, positionals } = parse(argv, { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, 'restore');
  if (v.help) {
    io.stdout.write(RESTORE_HELP);
    return EXIT.ok;
  }
  const [folder, ...files] = positionals;
  if (folder === undefined) throw new UsageError('no folder: pfc restore <folder> [files...] (see: pfc restore --help)');
  const outcome = await restoreOriginals({
    folder: resolve(io.cwd, folder),
    ...(files.length > 0 ? { paths: files.map((f) => resolve(io.cwd, f)) } : {}),
  }).catch((err: unknown) => {
    if (err instanceof BatchUsageError) throw new UsageError(err.message);
    throw err;
  });
  if (v.json) {
    for (const r of outcome.restored) io.stdout.write(`${JSON.stringify({ type: 'restored', ...r })}\n`);
    for (const s of outcome.skipped) io.stdout.write(`${JSON.stringify({ type: 'skipped', ...s })}\n`);
    if (outcome.stoppedBecause) io.stdout.write(`${JSON.stringify({ type: 'stopped', reason: outcome.stoppedBecause })}\n`);
  } else {
    for (const r of outcome.restored) io.stdout.write(`restored ${shown(io.cwd, r.path)} (from ${shown(io.cwd, r.from)})\n`);
    for (const s of outcome.skipped) io.stdout.write(`not restored ${shown(io.cwd, s.path)}: ${s.reason}\n`);
    io.stdout.write(`${outcome.restored.length} restored, ${outcome.skipped.length} not restored\n`);
    if (outcome.stoppedBecause) {
      io.stdout.write(`Stopped early: ${outcome.stoppedBecause}; no further file was restored, as each would fail the same way\n`);
      io.stdout.write('Once that is fixed, run the same command again to restore the rest.\n');
    }
  }
  // A file left as is (changed since, or without a kept original) is the user's to look at; one that
  // already is its original (a second restore) is not.
  return outcome.stoppedBecause || outcome.skipped.some((s) => !s.original) ? EXIT.failed : EXIT.ok;
}
