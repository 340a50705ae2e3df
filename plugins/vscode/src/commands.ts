/**
 * The commands of package.json's `contributes.commands`, wired to the run,
 * the keys, the report and the preset upload. One run at a time.
 */
import { ParameterError } from '@pfc/core';
import type * as vscode from 'vscode';
import { resolveBackend } from './backend';
import { clearKeys, isRefusedKey, KeyRefusedError, KeyStore, promptAndStoreKey, setKeyButton, type KeyName } from './keys';
import type { Log } from './log';
import { stat } from 'node:fs/promises';
import { basename, posix } from 'node:path';
import type { RestoreOutcome } from '@pfc/batch';
import { comparePair, type ComparePair } from './compare';
import { EmbeddedEmulator } from './embedded';
import { restoreRequests, restoreWithConfirmation } from './restore';
import { excludeRules, type ExcludeSetting } from './scan';
import { ensureBackend, offerHostedService } from './onboarding';
import { failedInputs, hasResults, LAST_RUN_KEY, loadLastRun, removeOldResults, resultsOf, type LastRun } from './last-run';
import { showReport } from './report';
import { correct, type RunRequest } from './run';
import { settingsFrom, SettingsError } from './settings';
import { summaryActions, summaryMessage } from './summary';
import { uploadPreset } from './upload-preset';
import type { ExtensionHost, VscodeApi } from './vscode-api';

export { LAST_RUN_KEY } from './last-run';

const IMAGE_FILTERS = { 'Images and videos': ['jpg', 'jpeg', 'png', 'mp4', 'mov'] };

/** The extension's state and its command handlers. */
export class Commands {
  readonly keys: KeyStore;
  private running = false;
  /** The workspace's last run: its small record, loaded (or moved from a previous version's format) at activation. */
  private last: Promise<LastRun | undefined>;
  private panel: vscode.WebviewPanel | undefined;
  /** Settles once the keys stored before activation are masked in the log: every command waits for it. */
  private readonly masked: Promise<void>;

  readonly embedded: EmbeddedEmulator;

  constructor(
    private readonly api: VscodeApi,
    private readonly host: ExtensionHost,
    private readonly log: Log,
    private readonly status: vscode.StatusBarItem,
  ) {
    // The log masks every key from the moment it is set (here, before it is stored; by another window, when SecretStorage says so), not from the next run.
    this.keys = new KeyStore(host.secrets, (value) => log.addSecrets([value]));
    host.subscriptions.push(this.keys.onDidChange((values) => log.addSecrets(values)));
    // Those stored before activation: VS Code activates on a command and runs it at once, so each command waits for them before it can log.
    this.masked = this.keys.values().then((values) => log.addSecrets(values), () => undefined);
    this.embedded = new EmbeddedEmulator(host.extensionUri.fsPath, (line) => log.line(line));
    // The last run of this workspace survives a reload: its report and Retry Failed.
    this.last = loadLastRun(host, (l) => log.line(l));
  }

  /** The exclusions for the scan of `scope` (the folder corrected: `files.exclude` is resource-scoped), read now (the user may have changed them). */
  private excludes(scope: string): ReturnType<typeof excludeRules> {
    const at = this.api.Uri.file(scope);
    const files = this.api.workspace.getConfiguration('files', at).get<ExcludeSetting>('exclude');
    const search = this.api.workspace.getConfiguration('search', at).get<ExcludeSetting>('exclude');
    return excludeRules(files, search, (abs) => this.api.workspace.getWorkspaceFolder(this.api.Uri.file(abs))?.uri.fsPath);
  }

  /** Stop what the extension started (the embedded emulator). */
  dispose(): Promise<void> {
    return this.embedded.dispose();
  }

  /** Register every command; disposables go to the extension's subscriptions. */
  register(): void {
    const table: Record<string, (...args: unknown[]) => unknown> = {
      'pfc.correctFolder': (uri, uris) => this.correctFolder(uri as vscode.Uri | undefined, uris as vscode.Uri[] | undefined),
      'pfc.correctFiles': (uri, uris) => this.correctFiles(uri as vscode.Uri | undefined, uris as vscode.Uri[] | undefined),
      'pfc.uploadPreset': (uri) => this.uploadPreset(uri as vscode.Uri | undefined),
      'pfc.setApiKey': () => this.setKey('apiKey'),
      'pfc.setBgrLicenceKey': () => this.setKey('bgrLicenceKey'),
      'pfc.clearKeys': () => clearKeys(this.api, this.keys),
      'pfc.showReport': (page) => this.showReport(page),
      'pfc.retryFailed': () => this.retryFailed(),
      'pfc.showLog': () => this.log.show(),
      'pfc.compareWithOriginal': (uri) => this.compareWithOriginal(uri as vscode.Uri | string | undefined),
      'pfc.useEmulator': () => this.useEmulator(),
      'pfc.restoreOriginals': (uri, uris) => this.restoreOriginals(uri as vscode.Uri | undefined, uris as vscode.Uri[] | undefined),
    };
    for (const [id, fn] of Object.entries(table)) {
      this.host.subscriptions.push(this.api.commands.registerCommand(id, (...args: unknown[]) => this.guard(async () => {
        await this.masked;
        return fn(...args);
      })));
    }
  }

  /** Errors become one notification and one log line, both with the stored keys masked (a bad setting's message quotes its value). */
  private async guard(fn: () => unknown): Promise<unknown> {
    try {
      return await fn();
    } catch (err) {
      const message = err instanceof SettingsError || err instanceof ParameterError ? err.message : err instanceof Error ? err.message : String(err);
      this.log.error(message);
      const { t } = this.api.l10n;
      const text = err instanceof SettingsError
        ? t('Invalid Perfectly Clear settings: {0}', err.issues.map((i) => i.message).join(t('; ')))
        : message.startsWith('Perfectly Clear') ? message : t('Perfectly Clear: {0}', message);
      const openSettings = t('Open Settings');
      const showLog = t('Show Log');
      // The service refused a key: the way to fix it comes first.
      const setKey = err instanceof KeyRefusedError ? setKeyButton(this.api.l10n, err.key) : undefined;
      const choice = await this.api.window.showErrorMessage(this.log.mask(text), ...(setKey ? [setKey] : []), err instanceof SettingsError ? openSettings : showLog);
      if (choice === openSettings) void this.api.commands.executeCommand('workbench.action.openSettings', 'pfc.');
      if (choice === showLog) this.log.show();
      if (setKey && choice === setKey) await this.setKey((err as KeyRefusedError).key);
      return undefined;
    }
  }

  async correctFolder(uri?: vscode.Uri, uris?: vscode.Uri[]): Promise<LastRun | undefined> {
    let targets = uris && uris.length > 0 ? uris : uri ? [uri] : undefined;
    targets ??= await this.api.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, canSelectMany: true, openLabel: this.api.l10n.t('Correct Images in Folder') });
    if (!targets || targets.length === 0 || !this.onDisk(targets)) return undefined;
    return this.run({ inputs: targets.map((u) => u.fsPath) });
  }

  async correctFiles(uri?: vscode.Uri, uris?: vscode.Uri[]): Promise<LastRun | undefined> {
    let targets = uris && uris.length > 0 ? uris : uri ? [uri] : undefined;
    targets ??= await this.api.window.showOpenDialog({ canSelectFolders: false, canSelectFiles: true, canSelectMany: true, filters: IMAGE_FILTERS, openLabel: this.api.l10n.t('Correct') });
    if (!targets || targets.length === 0 || !this.onDisk(targets)) return undefined;
    return this.run({ inputs: targets.map((u) => u.fsPath) });
  }

  /**
   * Whether every URI is a file on disk. A folder of a virtual or another
   * provider's file system (GitHub Repositories, SSH FS, memfs…) has an `fsPath`
   * that names nothing on this disk: the user is told instead of seeing ENOENT.
   */
  private onDisk(uris: readonly vscode.Uri[]): boolean {
    const away = uris.find((u) => u.scheme !== 'file');
    if (!away) return true;
    void this.api.window.showInformationMessage(
      this.api.l10n.t('Perfectly Clear: {0} is not on this computer\'s disk (it is a {1}: resource), so it cannot be corrected. Open a folder from disk to correct its photos.', posix.basename(away.path) || away.toString(), away.scheme),
    );
    return false;
  }

  async retryFailed(): Promise<LastRun | undefined> {
    const last = await this.last;
    // Every failure of the results file, not only the first ones a summary keeps.
    const failed = hasResults(last) && last.summary.failed > 0 ? await failedInputs(last) : [];
    if (!last || failed.length === 0) {
      const { t } = this.api.l10n;
      // Files left as is on purpose (already corrected, would replace another file…) would be refused again.
      const leftAsIs = (last?.summary.refused ?? 0) > 0;
      // With no run at all, "the last run has no failed files" would speak of a run that never happened.
      void this.api.window.showInformationMessage(
        !last
          ? t('Perfectly Clear: no run yet in this workspace, so there are no failed files to retry.')
          : leftAsIs
            ? t('Perfectly Clear: the last run has no failed files to retry; the files it left as is on purpose stay so until you act on them (see the report for why).')
            : t('Perfectly Clear: the last run has no failed files.'),
      );
      return undefined;
    }
    return this.run({ inputs: last.inputs, retry: { only: failed, choices: last.choices ?? [{ inputs: last.inputs, mode: last.mode, params: last.params }] } });
  }

  /** "Show Report": page `page` (from 0; the report's own links pass it) of the last run's results. */
  async showReport(page?: unknown): Promise<void> {
    const last = await this.last;
    if (!last) {
      void this.api.window.showInformationMessage(this.api.l10n.t('Perfectly Clear: no run yet in this workspace.'));
      return;
    }
    if (!hasResults(last)) {
      void this.api.window.showInformationMessage(this.api.l10n.t('Perfectly Clear: the results of the last run are no longer on disk; correct the files again to see a report.'));
      return;
    }
    const at = typeof page === 'number' && Number.isSafeInteger(page) && page >= 0 ? page : 0;
    const panel = await showReport(this.api, last, at, this.panel);
    if (panel !== this.panel) panel.onDidDispose(() => (this.panel = undefined));
    this.panel = panel;
  }

  /** The file of the active editor tab (text, or an image in VS Code's image preview), if it has one. */
  private activeFile(): vscode.Uri | undefined {
    const input = this.api.window.tabGroups.activeTabGroup.activeTab?.input;
    const uri = typeof input === 'object' && input !== null && 'uri' in input ? (input as { uri: unknown }).uri : undefined;
    return typeof uri === 'object' && uri !== null && 'fsPath' in uri && 'scheme' in uri ? (uri as vscode.Uri) : undefined;
  }

  /**
   * Open the diff editor between a corrected file and its original. `target` is
   * the Explorer's file, a path (from the report) or, from the palette, the active editor's file.
   */
  async compareWithOriginal(given?: vscode.Uri | string): Promise<ComparePair | undefined> {
    const target = given ?? this.activeFile();
    if (target && typeof target !== 'string' && !this.onDisk([target])) return undefined;
    const path = typeof target === 'string' ? target : target?.fsPath;
    if (!path) {
      void this.api.window.showInformationMessage(this.api.l10n.t('Perfectly Clear: right-click a corrected image in the Explorer to compare it with its original.'));
      return undefined;
    }
    let layout: { folderName?: string; suffix?: string } = {};
    try {
      const s = settingsFrom(this.api, this.api.Uri.file(path));
      layout = { folderName: s.outputFolderName, suffix: s.outputSuffix };
    } catch {
      // Bad settings only lose the layout guess; the last run still pairs files.
    }
    const last = await this.last;
    const pair = await comparePair(path, hasResults(last) ? resultsOf(last) : undefined, layout);
    if (!pair) {
      void this.api.window.showInformationMessage(this.api.l10n.t('Perfectly Clear: no original or corrected copy of {0} is known (correct it first).', basename(path)));
      return undefined;
    }
    const title = this.api.l10n.t('{0} ↔ {1} (Original ↔ Perfectly Clear)', basename(pair.original), basename(pair.corrected));
    await this.api.commands.executeCommand('vscode.diff', this.api.Uri.file(pair.original), this.api.Uri.file(pair.corrected), title);
    return pair;
  }

  /**
   * "Restore Originals": the Explorer's folders or files, or (from the palette)
   * every file the last run corrected in place.
   */
  async restoreOriginals(uri?: vscode.Uri, uris?: vscode.Uri[]): Promise<RestoreOutcome | undefined> {
    if (this.running) {
      void this.api.window.showInformationMessage(this.api.l10n.t('Perfectly Clear: a run is in progress; restore when it has finished.'));
      return undefined;
    }
    const picked = uris && uris.length > 0 ? uris : uri ? [uri] : [];
    if (!this.onDisk(picked)) return undefined;
    const targets = await Promise.all(picked.map(async (u) => ({ path: u.fsPath, isDir: (await stat(u.fsPath)).isDirectory() })));
    const last = await this.last;
    const requests = await restoreRequests(targets, hasResults(last) ? resultsOf(last) : undefined, (p) => this.api.workspace.getWorkspaceFolder(this.api.Uri.file(p))?.uri.fsPath);
    return restoreWithConfirmation(this.api, this.log, requests, targets.map((t) => t.path));
  }

  /** "Use the Local Emulator": backend `emulator` in the user settings (the embedded one unless pfc.emulatorUrl is set). */
  async useEmulator(): Promise<void> {
    const { t } = this.api.l10n;
    // The universal package has no emulator to start: choosing it would only fail at the next run.
    if (!settingsFrom(this.api).emulatorUrl && !this.embedded.installed()) {
      void this.api.window.showWarningMessage(t('Perfectly Clear: this installation has no local emulator, so photos cannot be corrected offline; pfc.backend is left as it was. Set an API key to correct them with the hosted service, or set pfc.emulatorUrl to a running emulator (started with "pfc emulator").'), {});
      return;
    }
    await this.api.workspace.getConfiguration('pfc').update('backend', 'emulator', this.api.ConfigurationTarget.Global);
    // A workspace's own pfc.backend wins over the user settings: the confirmation must not claim the emulator runs there.
    const inWorkspace = this.api.workspace.getConfiguration('pfc').inspect<string>('backend')?.workspaceValue;
    void this.api.window.showInformationMessage(
      inWorkspace !== undefined && inWorkspace !== 'emulator'
        ? t('Perfectly Clear: pfc.backend = emulator is saved in your user settings, but this workspace\'s settings set pfc.backend to {0}, which wins here: its corrections do not run on the local emulator until you remove that setting.', inWorkspace)
        : t('Perfectly Clear: corrections now run on the local emulator on this computer (pfc.backend = emulator).'),
    );
  }

  async uploadPreset(uri?: vscode.Uri): Promise<string | undefined> {
    let target = uri;
    if (!target) target = (await this.api.window.showOpenDialog({ canSelectFiles: true, canSelectMany: false, filters: { [this.api.l10n.t('Presets')]: ['preset'] }, openLabel: this.api.l10n.t('Upload Preset') }))?.[0];
    if (!target || !this.onDisk([target])) return undefined;
    const settings = settingsFrom(this.api, target);
    const resolved = await ensureBackend({ api: this.api, keys: this.keys, log: this.log }, settings, (s) => resolveBackend(s, this.keys, { embedded: this.embedded, l10n: this.api.l10n }));
    if (!resolved) return undefined;
    try {
      return await uploadPreset(this.api, this.log, resolved.backend, target.fsPath);
    } catch (err) {
      throw isRefusedKey(err) && resolved.backend.key ? new KeyRefusedError(resolved.backend.key, err as Error) : err;
    } finally {
      await resolved.backend.close();
    }
  }

  private async run(req: RunRequest): Promise<LastRun | undefined> {
    if (this.running) {
      void this.api.window.showInformationMessage(this.api.l10n.t('Perfectly Clear: a run is already in progress; cancel it from its notification first.'));
      return undefined;
    }
    this.running = true;
    try {
      // A previous version's record is moved to a results file first, so that move cannot write over this run's record.
      await this.last;
      this.log.addSecrets(await this.keys.values());
      const outcome = await correct({
        api: this.api, keys: this.keys, log: this.log, status: this.status, embedded: this.embedded, globalState: this.host.globalState, excludes: (scope) => this.excludes(scope), storage: this.host,
      }, req);
      if (!outcome) return undefined;
      const { last, refusedKey } = outcome;
      this.last = Promise.resolve(last);
      await this.host.workspaceState.update(LAST_RUN_KEY, last);
      // Only the last run's results are kept.
      await removeOldResults(this.host, last.resultsFile).catch((err: unknown) => this.log.line(`earlier results files were not removed: ${err instanceof Error ? err.message : String(err)}`));
      const msg = summaryMessage(last.summary, this.api.l10n, refusedKey);
      this.log.line(msg.text);
      // The run is over when the summary shows; the buttons are handled without holding the command open.
      void this.onSummary(msg, last, refusedKey);
      return last;
    } finally {
      this.running = false;
    }
  }

  /**
   * What the key's command runs ("Perfectly Clear: Set API Key"): the buttons
   * of key notifications run it too. An API key set while `pfc.backend` =
   * emulator would go unused: the user is offered the hosted service.
   */
  private async setKey(name: KeyName): Promise<boolean> {
    const stored = await promptAndStoreKey(this.api, this.keys, name);
    if (stored && name === 'apiKey') await offerHostedService(this.api);
    return stored;
  }

  private async onSummary(msg: ReturnType<typeof summaryMessage>, last: LastRun, refusedKey: KeyName | undefined): Promise<void> {
    const show = msg.severity === 'warning' ? this.api.window.showWarningMessage.bind(this.api.window, msg.text, {}) : this.api.window.showInformationMessage.bind(this.api.window, msg.text);
    const choice = await show(...msg.actions);
    const action = summaryActions(this.api.l10n);
    if (refusedKey && choice === setKeyButton(this.api.l10n, refusedKey)) await this.guard(() => this.setKey(refusedKey));
    else if (choice === action.report) this.showReport();
    else if (choice === action.retry) await this.guard(() => this.retryFailed());
    else if (choice === action.open) {
      const root = last.summary.outputRoots[0];
      if (root) await this.api.commands.executeCommand('revealInExplorer', this.api.Uri.file(root));
    }
  }
}
