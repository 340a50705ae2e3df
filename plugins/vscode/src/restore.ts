/**
 * "Restore Originals": put back the originals an in-place run kept
 * (`.pfc-originals/`), with @pfc/batch's `restoreOriginals` — the same
 * mechanism as `pfc restore`. Only pfc's own results are replaced; a file
 * changed since it was corrected is left as it is and named in the log.
 */
import { basename, dirname, sep } from 'node:path';
import { BACKUP_DIR, keptOriginals, restoreOriginals, type FileResult, type RestoreOutcome, type RestoreRequest } from '@pfc/batch';
import type { Log } from './log';
import { VSCODE_TERMS } from './terms';
import type { VscodeApi } from './vscode-api';

/** What to restore: one request per folder that holds backups; with no target, every file of the last run's `results` corrected in place. */
export async function restoreRequests(targets: readonly { path: string; isDir: boolean }[], results: AsyncIterable<FileResult> | Iterable<FileResult> | undefined, folderOf: (path: string) => string | undefined): Promise<RestoreRequest[]> {
  if (targets.length === 0) {
    // The whole last run: every file it corrected in place, under the folder holding its backup.
    const byFolder = new Map<string, string[]>();
    for await (const r of results ?? []) {
      if (!r.backup) continue;
      const at = r.backup.lastIndexOf(`${sep}${BACKUP_DIR}${sep}`);
      if (at < 0) continue;
      const folder = r.backup.slice(0, at);
      const paths = byFolder.get(folder);
      if (paths) paths.push(r.input);
      else byFolder.set(folder, [r.input]);
    }
    return [...byFolder].map(([folder, paths]) => ({ folder, paths }));
  }
  const requests: RestoreRequest[] = [];
  const files = new Map<string, string[]>();
  for (const t of targets) {
    if (t.isDir) requests.push({ folder: t.path });
    else {
      // A file's backup is looked up from its folder up to this one.
      const folder = folderOf(t.path) ?? dirname(t.path);
      files.set(folder, [...(files.get(folder) ?? []), t.path]);
    }
  }
  return [...requests, ...[...files].map(([folder, paths]) => ({ folder, paths }))];
}

/**
 * Ask, restore, and say what happened. `picked`: the folders and files the
 * user chose (none from the palette: the last run). Resolves the outcome, or
 * undefined when the user declined or there was nothing to restore.
 */
export async function restoreWithConfirmation(api: VscodeApi, log: Log, found: readonly RestoreRequest[], picked: readonly string[] = []): Promise<RestoreOutcome | undefined> {
  const { t } = api.l10n;
  // Looked for before asking, as the restore will find them: a folder never corrected in place has nothing to put back, and
  // the modal's warning that corrected versions are replaced would alarm for nothing (then say "restored 0 originals").
  const kept = await Promise.all(found.map((r) => keptOriginals(r)));
  const requests = found.filter((_, i) => (kept[i] ?? 0) > 0);
  if (requests.length === 0) {
    const [one] = picked;
    void api.window.showInformationMessage(
      picked.length === 0
        ? t('Perfectly Clear: the last run kept no originals (only in-place runs do). Right-click a folder corrected in place to restore its originals.')
        : picked.length === 1 && one !== undefined
          ? t('Perfectly Clear: nothing to restore: {0} was never corrected in place (only in-place runs keep originals).', basename(one))
          : t('Perfectly Clear: nothing to restore: none of the {0} items selected was corrected in place (only in-place runs keep originals).', picked.length),
    );
    return undefined;
  }
  const what = requests
    .map((r) => (r.paths ? (r.paths.length === 1 ? t('1 file in {0}', r.folder) : t('{0} files in {1}', r.paths.length, r.folder)) : t('every file in {0}', r.folder)))
    .join(t('; '));
  const restore = t('Restore');
  const go = await api.window.showWarningMessage(
    t('Restore the originals of {0}? The corrected versions are replaced; files changed since they were corrected are left as they are.', what),
    { modal: true },
    restore,
  );
  if (go !== restore) return undefined;
  const outcome: RestoreOutcome = { restored: [], skipped: [] };
  await api.window.withProgress({ location: api.ProgressLocation.Notification, title: t('Perfectly Clear: restoring originals'), cancellable: true }, async (_p, token) => {
    const controller = new AbortController();
    const sub = token.onCancellationRequested(() => controller.abort());
    try {
      for (const r of requests) {
        const o = await restoreOriginals({ ...r, terms: VSCODE_TERMS }, controller.signal);
        outcome.restored.push(...o.restored);
        outcome.skipped.push(...o.skipped);
        if (o.stoppedBecause) {
          outcome.stoppedBecause = o.stoppedBecause;
          break;
        }
      }
    } finally {
      sub.dispose();
    }
  });
  for (const r of outcome.restored) log.line(`restored ${r.path} from ${r.from}`);
  for (const s of outcome.skipped) log.line(`not restored ${s.path}: ${s.reason}`);
  const n = outcome.restored.length;
  const k = outcome.skipped.length;
  const restored = n === 1 ? t('restored 1 original') : t('restored {0} originals', n);
  if (outcome.stoppedBecause) {
    log.line(`restore stopped: ${outcome.stoppedBecause}`);
    void api.window.showErrorMessage(t('Perfectly Clear: restore stopped: {0}. It {1} first; run Restore again once that is fixed.', outcome.stoppedBecause, restored));
    return outcome;
  }
  const text = k > 0 ? t('Perfectly Clear: {0}; {1} left as they are (see the log).', restored, k) : t('Perfectly Clear: {0}.', restored);
  if (k > 0) {
    const showLog = t('Show Log');
    if ((await api.window.showWarningMessage(text, {}, showLog)) === showLog) log.show();
  } else void api.window.showInformationMessage(text);
  return outcome;
}
