/**
 * The few parts of the `vscode` API this extension uses, as one typed seam.
 * `extension.ts` passes the real module; unit tests pass a typed fake. Only
 * `extension.ts` imports `vscode` at run time, so every other module loads in
 * plain Node (vitest) without a VS Code.
 */
import type * as vscode from 'vscode';

export interface VscodeWindow {
  showQuickPick<T extends vscode.QuickPickItem>(items: readonly T[] | Thenable<readonly T[]>, options?: vscode.QuickPickOptions): Thenable<T | undefined>;
  showInputBox(options?: vscode.InputBoxOptions): Thenable<string | undefined>;
  showInformationMessage<T extends string>(message: string, ...items: T[]): Thenable<T | undefined>;
  showInformationMessage<T extends string>(message: string, options: vscode.MessageOptions, ...items: T[]): Thenable<T | undefined>;
  showWarningMessage<T extends string>(message: string, options: vscode.MessageOptions, ...items: T[]): Thenable<T | undefined>;
  showErrorMessage<T extends string>(message: string, ...items: T[]): Thenable<T | undefined>;
  showOpenDialog(options?: vscode.OpenDialogOptions): Thenable<vscode.Uri[] | undefined>;
  /** Only the overload that hides the message by itself: a message without a timeout stays until disposed. */
  setStatusBarMessage(text: string, hideAfterTimeout: number): vscode.Disposable;
  withProgress<R>(
    options: vscode.ProgressOptions,
    task: (progress: vscode.Progress<{ message?: string; increment?: number }>, token: vscode.CancellationToken) => Thenable<R>,
  ): Thenable<R>;
  createOutputChannel(name: string, options: { log: true }): vscode.LogOutputChannel;
  createStatusBarItem(alignment?: vscode.StatusBarAlignment, priority?: number): vscode.StatusBarItem;
  createWebviewPanel(viewType: string, title: string, showOptions: vscode.ViewColumn, options?: vscode.WebviewPanelOptions & vscode.WebviewOptions): vscode.WebviewPanel;
  /** The active editor tab: an image is open in VS Code's image preview (a custom editor), not a text editor. */
  readonly tabGroups: { readonly activeTabGroup: { readonly activeTab: { readonly input: unknown } | undefined } };
}

/**
 * `vscode.l10n`: `t` looks the English message up in the bundle of VS Code's
 * display language (`l10n/bundle.l10n.<locale>.json`) and fills `{0}`, `{1}`….
 */
export interface VscodeL10n {
  t(message: string, ...args: (string | number | boolean)[]): string;
}

/** `l10n` as VS Code behaves without a bundle: the English message, `{n}` filled from the arguments. */
export const ENGLISH_L10N: VscodeL10n = {
  t: (message, ...args) => message.replace(/\{(\d+)\}/g, (all, i: string) => (Number(i) < args.length ? String(args[Number(i)]) : all)),
};

export interface VscodeApi {
  window: VscodeWindow;
  l10n: VscodeL10n;
  workspace: {
    getConfiguration(section?: string, scope?: vscode.ConfigurationScope | null): vscode.WorkspaceConfiguration;
    getWorkspaceFolder(uri: vscode.Uri): vscode.WorkspaceFolder | undefined;
  };
  commands: {
    registerCommand(command: string, callback: (...args: unknown[]) => unknown): vscode.Disposable;
    executeCommand<T = unknown>(command: string, ...rest: unknown[]): Thenable<T>;
  };
  Uri: { file(path: string): vscode.Uri; joinPath(base: vscode.Uri, ...pathSegments: string[]): vscode.Uri };
  ProgressLocation: typeof vscode.ProgressLocation;
  StatusBarAlignment: typeof vscode.StatusBarAlignment;
  ViewColumn: typeof vscode.ViewColumn;
  ConfigurationTarget: typeof vscode.ConfigurationTarget;
  QuickPickItemKind: typeof vscode.QuickPickItemKind;
}

/** What the extension keeps from its `ExtensionContext`. */
export interface ExtensionHost {
  secrets: vscode.SecretStorage;
  subscriptions: { dispose(): unknown }[];
  extensionUri: vscode.Uri;
  /** Per installation: the emulator notice shown once. */
  globalState: Pick<vscode.Memento, 'get' | 'update'>;
  /** Per workspace: the last run's small record (report, Retry Failed) survives a reload. */
  workspaceState: Pick<vscode.Memento, 'get' | 'update'>;
  /** Per workspace folder for the runs' results files; undefined when no folder is open. May not exist yet. */
  storageUri: vscode.Uri | undefined;
  /** Per installation: the results files' folder when no folder is open. May not exist yet. */
  globalStorageUri: vscode.Uri;
}
