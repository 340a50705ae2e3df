/**
 * A typed fake of the few VS Code APIs the extension uses (`VscodeApi`): the
 * UI answers come from scripts the test sets, and everything shown is
 * recorded. Only the enums need casts: their values are VS Code's.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { processAlive } from '@pfc/node-io';
import type * as vscode from 'vscode';
import { ENGLISH_L10N, type ExtensionHost, type VscodeApi } from '../src/vscode-api';

type Answer = string | undefined;

export interface Shown {
  kind: 'info' | 'warning' | 'error';
  text: string;
  actions: string[];
  modal: boolean;
}

/** A `window.setStatusBarMessage`: its text, the timeout after which VS Code hides it, and whether it was disposed before. */
export interface StatusMessage {
  text: string;
  hideAfterMs: number;
  disposed: boolean;
}

class FakeUri {
  readonly scheme = 'file';
  constructor(readonly fsPath: string) {}
  toString(): string {
    return `file://${this.fsPath}`;
  }
}
const uri = (p: string): vscode.Uri => new FakeUri(p) as unknown as vscode.Uri;

class Emitter<T> {
  private listeners = new Set<(e: T) => unknown>();
  readonly event = (l: (e: T) => unknown): vscode.Disposable => {
    this.listeners.add(l);
    return { dispose: () => this.listeners.delete(l) };
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
}

export class FakeSecrets implements vscode.SecretStorage {
  readonly store_ = new Map<string, string>();
  private readonly changed = new Emitter<vscode.SecretStorageChangeEvent>();
  readonly onDidChange = this.changed.event;
  async get(key: string): Promise<string | undefined> {
    return this.store_.get(key);
  }
  async store(key: string, value: string): Promise<void> {
    this.store_.set(key, value);
    this.changed.fire({ key });
  }
  async delete(key: string): Promise<void> {
    this.store_.delete(key);
    this.changed.fire({ key });
  }
  async keys(): Promise<string[]> {
    return [...this.store_.keys()];
  }
}

/** An in-memory Memento (globalState, workspaceState); values go through JSON as VS Code stores them. */
export class FakeMemento {
  readonly store = new Map<string, string>();
  get<T>(key: string, fallback?: T): T | undefined {
    const v = this.store.get(key);
    return v === undefined ? fallback : (JSON.parse(v) as T);
  }
  async update(key: string, value: unknown): Promise<void> {
    if (value === undefined) this.store.delete(key);
    else this.store.set(key, JSON.stringify(value));
  }
}

/** The fakes' storage folders live in `<tmp>/pfc-vscode-storage/p<pid>-…/`, one folder per test process. */
const STORAGE_PARENT = join(tmpdir(), 'pfc-vscode-storage');
let storageRoot: string | undefined;

/**
 * A fresh folder for one fake's storage. The test workers are ended without an
 * `exit` event, so each process removes the folders of processes that are gone.
 */
function storageParent(): string {
  if (!storageRoot) {
    mkdirSync(STORAGE_PARENT, { recursive: true });
    for (const name of readdirSync(STORAGE_PARENT)) {
      const pid = Number(/^p(\d+)-/.exec(name)?.[1]);
      if (pid > 0 && !processAlive(pid)) rmSync(join(STORAGE_PARENT, name), { recursive: true, force: true });
    }
    storageRoot = mkdtempSync(join(STORAGE_PARENT, `p${process.pid}-`));
  }
  return mkdtempSync(join(storageRoot, 'w-'));
}

/**
 * The extension's storage folders, as VS Code gives them: only their parent
 * exists ("The directory might not exist and creation is up to the extension.
 * However, the parent directory is guaranteed to be existent", @types/vscode
 * 1.100 `ExtensionContext.storageUri`); `workspace` is undefined when no folder is open.
 */
export interface FakeStorage {
  workspace: string | undefined;
  global: string;
}

/** Fresh storage folders (not created); `noFolder`: a window without a workspace. */
export function fakeStorage(noFolder = false): FakeStorage {
  const parent = storageParent();
  mkdirSync(join(parent, 'workspaceStorage'));
  mkdirSync(join(parent, 'globalStorage'));
  return { workspace: noFolder ? undefined : join(parent, 'workspaceStorage', 'pfc.pfc-vscode'), global: join(parent, 'globalStorage', 'pfc.pfc-vscode') };
}

/** The plugin folder: the embedded emulator is found from it as from an installed extension's folder. */
export const PLUGIN_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The `pfc.*` settings package.json declares (keys without `pfc.`): their scope and default. */
const DECLARED: ReadonlyMap<string, { scope?: string; default?: unknown }> = new Map(
  Object.entries((JSON.parse(readFileSync(join(PLUGIN_DIR, 'package.json'), 'utf8')) as { contributes: { configuration: { properties: Record<string, { scope?: string; default?: unknown }> } } }).contributes.configuration.properties)
    .map(([k, p]) => [k.slice('pfc.'.length), p]),
);

/** The `pfc.*` settings package.json declares with `scope: resource` (keys without `pfc.`). */
const RESOURCE_SCOPED_KEYS: ReadonlySet<string> = new Set([...DECLARED].filter(([, p]) => p.scope === 'resource').map(([k]) => k));

export interface FakeOptions {
  /** `pfc.*` settings (keys without the `pfc.` prefix). */
  settings?: Record<string, unknown>;
  /**
   * `pfc.*` settings of the workspace (a single folder's `.vscode/settings.json`,
   * a `.code-workspace` file): they win over `settings` (the user's) for every
   * setting, as VS Code reads them, and `inspect` reports them as `workspaceValue`.
   */
  workspaceSettings?: Record<string, unknown>;
  /** Settings of other sections (`files`, `search`). */
  otherSettings?: Record<string, Record<string, unknown>>;
  /** State kept across "reloads": pass the previous fake's. */
  workspaceState?: FakeMemento;
  globalState?: FakeMemento;
  /** Storage folders; pass the previous fake's with its workspaceState for a reload. Default: fresh ones. */
  storage?: FakeStorage;
  /**
   * The display language's bundle (`bundle.l10n.<locale>.json`: English message
   * → translation). Without it `l10n.t` returns the English message, as VS Code
   * does for English; either way `{0}`, `{1}`… are filled from the arguments.
   */
  l10nBundle?: Record<string, string>;
  /**
   * `pfc.*` settings of workspace folders (a folder's `.vscode/settings.json` in a
   * multi-root workspace), by the folder's path: VS Code applies them to settings
   * of `resource` scope read with a resource inside that folder.
   */
  folderSettings?: Record<string, Record<string, unknown>>;
  /**
   * Settings of other sections (`files`, `search`) in workspace folders, by the
   * folder's path and then the section: read with a resource inside that folder,
   * an object value (`files.exclude`) is the folder's merged over the others', as
   * VS Code merges object settings; read without a resource, the folder's are not seen.
   */
  folderOtherSettings?: Record<string, Record<string, Record<string, unknown>>>;
  /** The installed extension's folder. Default: the plugin folder, from which the embedded emulator is found. */
  extensionDir?: string;
}

/** `l10n` without a bundle (English), as the extension's own default. */
export { ENGLISH_L10N };

/** The fake and its recordings. */
export class FakeVscode {
  readonly settings: Record<string, unknown>;
  readonly workspaceSettings: Record<string, unknown>;
  readonly folderSettings: Record<string, Record<string, unknown>>;
  /**
   * What VS Code's extension host logs as a warning when a `resource`-scoped
   * setting is read without saying for which resource (multi-root folders' values are then ignored).
   */
  readonly configWarnings: string[] = [];
  readonly settingUpdates: { key: string; value: unknown; target: unknown }[] = [];
  readonly shown: Shown[] = [];
  readonly output: string[] = [];
  /** Trace-level log lines (hidden at VS Code's default level). */
  readonly traces: string[] = [];
  /** Settings of other sections, e.g. `{ files: { exclude: {…} } }`. */
  readonly otherSettings: Record<string, Record<string, unknown>>;
  readonly folderOtherSettings: Record<string, Record<string, Record<string, unknown>>>;
  /** Workspace folders (absolute paths) for `getWorkspaceFolder`. */
  workspaceFolders: string[] = [];
  readonly progress: { message?: string; increment?: number }[] = [];
  readonly statusTexts: string[] = [];
  readonly statusMessages: StatusMessage[] = [];
  statusVisible = false;
  readonly executed: { command: string; args: unknown[] }[] = [];
  readonly commands = new Map<string, (...args: unknown[]) => unknown>();
  /** Webview panels opened: their title, page, and options (`enableScripts`, `enableCommandUris`, `localResourceRoots`) as last set. */
  readonly webviews: { title: string; html: string; options: vscode.WebviewPanelOptions & vscode.WebviewOptions }[] = [];
  readonly quickPicks: vscode.QuickPickItem[][] = [];
  /** Chooses a quick-pick item by label; default: the first non-separator. */
  pick: (items: readonly vscode.QuickPickItem[]) => string | undefined = (items) => items.find((i) => i.kind === undefined)?.label;
  /** Answers of input boxes, in order. */
  readonly inputs: Answer[] = [];
  /** The options of every input box shown (its title, `password`…), in order. */
  readonly inputBoxes: vscode.InputBoxOptions[] = [];
  /** Answers of messages: the first rule whose pattern matches the text decides. */
  readonly answers: { match: RegExp; answer: Answer }[] = [];
  /** The active editor tab's input (`TabInputText`, `TabInputCustom` for an image preview…); none by default. */
  activeTabInput: unknown;
  /** Called once progress starts; lets a test cancel through the token. */
  onProgressStart: ((cancel: () => void) => void) | undefined;
  readonly secrets = new FakeSecrets();
  readonly workspaceState: FakeMemento;
  readonly globalState: FakeMemento;
  readonly storage: FakeStorage;
  readonly host: ExtensionHost;
  readonly api: VscodeApi;
  private readonly l10nBundle: Record<string, string> | undefined;

  constructor(options: FakeOptions = {}) {
    this.settings = { ...options.settings };
    this.workspaceSettings = { ...options.workspaceSettings };
    this.folderSettings = { ...options.folderSettings };
    this.otherSettings = { ...options.otherSettings };
    this.folderOtherSettings = { ...options.folderOtherSettings };
    this.workspaceState = options.workspaceState ?? new FakeMemento();
    this.globalState = options.globalState ?? new FakeMemento();
    this.storage = options.storage ?? fakeStorage();
    this.l10nBundle = options.l10nBundle;
    this.host = {
      secrets: this.secrets, subscriptions: [], extensionUri: uri(options.extensionDir ?? PLUGIN_DIR), globalState: this.globalState, workspaceState: this.workspaceState,
      storageUri: this.storage.workspace === undefined ? undefined : uri(this.storage.workspace), globalStorageUri: uri(this.storage.global),
    };
    this.api = this.build();
  }

  /** Run a registered command as VS Code would. */
  run(command: string, ...args: unknown[]): Promise<unknown> {
    const fn = this.commands.get(command);
    if (!fn) throw new Error(`command ${command} is not registered`);
    return Promise.resolve(fn(...args));
  }

  uri(path: string): vscode.Uri {
    return uri(path);
  }

  private answer(text: string): Answer {
    return this.answers.find((a) => a.match.test(text))?.answer;
  }

  private build(): VscodeApi {
    // The fake's getters and methods are object literals with their own `this`; they record into the fake.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this;
    const message = (kind: Shown['kind']) =>
      async (text: string, ...rest: unknown[]): Promise<never> => {
        const modal = typeof rest[0] === 'object' && rest[0] !== null && (rest[0] as vscode.MessageOptions).modal === true;
        const actions = rest.filter((r): r is string => typeof r === 'string');
        self.shown.push({ kind, text, actions, modal });
        const a = self.answer(text);
        return (a !== undefined && actions.includes(a) ? a : undefined) as never;
      };
    const status = {
      alignment: 1, priority: 10, id: 'pfc', name: undefined, backgroundColor: undefined, color: undefined, accessibilityInformation: undefined,
      tooltip: undefined as string | undefined, command: undefined as string | undefined,
      get text() { return self.statusTexts[self.statusTexts.length - 1] ?? ''; },
      set text(t: string) { self.statusTexts.push(t); },
      show: () => { self.statusVisible = true; },
      hide: () => { self.statusVisible = false; },
      dispose: () => undefined,
    } as unknown as vscode.StatusBarItem;
    const window: VscodeApi['window'] = {
      async showQuickPick<T extends vscode.QuickPickItem>(items: readonly T[] | Thenable<readonly T[]>): Promise<T | undefined> {
        const list = await items;
        self.quickPicks.push([...list]);
        const label = self.pick(list);
        return list.find((i) => i.label === label && i.kind === undefined);
      },
      async showInputBox(options?: vscode.InputBoxOptions): Promise<string | undefined> {
        self.inputBoxes.push({ ...options });
        const v = self.inputs.shift();
        if (v !== undefined && options?.validateInput) {
          const problem = await options.validateInput(v);
          if (problem) throw new Error(`input "${v}" refused: ${String(problem)}`);
        }
        return v;
      },
      showInformationMessage: message('info'),
      showWarningMessage: message('warning'),
      showErrorMessage: message('error'),
      async showOpenDialog() {
        return undefined;
      },
      setStatusBarMessage(text: string, hideAfterTimeout: number): vscode.Disposable {
        const shown: StatusMessage = { text, hideAfterMs: hideAfterTimeout, disposed: false };
        self.statusMessages.push(shown);
        return { dispose: () => { shown.disposed = true; } };
      },
      async withProgress<R>(_o: vscode.ProgressOptions, task: (p: vscode.Progress<{ message?: string; increment?: number }>, t: vscode.CancellationToken) => Thenable<R>): Promise<R> {
        const cancelled = new Emitter<void>();
        const token = { isCancellationRequested: false, onCancellationRequested: cancelled.event } as vscode.CancellationToken;
        const cancel = (): void => {
          (token as { isCancellationRequested: boolean }).isCancellationRequested = true;
          cancelled.fire();
        };
        self.onProgressStart?.(cancel);
        return task({ report: (v) => void self.progress.push(v) }, token);
      },
      // A LogOutputChannel: info/error lines are recorded (as the default Info level shows them), trace lines apart.
      createOutputChannel: () => ({
        info: (l: string) => void self.output.push(l),
        error: (l: string) => void self.output.push(`error: ${l}`),
        trace: (l: string) => void self.traces.push(l),
        show: () => undefined,
        dispose: () => undefined,
      }) as unknown as vscode.LogOutputChannel,
      createStatusBarItem: () => status,
      tabGroups: {
        get activeTabGroup() {
          return { activeTab: self.activeTabInput === undefined ? undefined : { input: self.activeTabInput } };
        },
      },
      createWebviewPanel(_type: string, title: string, _column: vscode.ViewColumn, options?: vscode.WebviewPanelOptions & vscode.WebviewOptions) {
        const entry = { title, html: '', options: { ...options } };
        self.webviews.push(entry);
        const webview = {
          cspSource: 'https://fake.vscode-cdn.net',
          get options() { return entry.options; },
          set options(o: vscode.WebviewOptions) { entry.options = { ...o }; },
          asWebviewUri: (u: vscode.Uri) => uri(`/webview${u.fsPath}`),
          get html() { return entry.html; },
          set html(h: string) { entry.html = h; },
        };
        return { webview, reveal: () => undefined, onDidDispose: () => ({ dispose: () => undefined }), dispose: () => undefined } as unknown as vscode.WebviewPanel;
      },
    };
    /** The `pfc.*` values of the workspace folder holding `scope` (its `.vscode/settings.json`), for a setting of resource scope. */
    const folderValuesAt = (scope: vscode.ConfigurationScope | null | undefined, key: string): Record<string, unknown> | undefined => {
      const at = scope && 'fsPath' in scope ? (scope as vscode.Uri).fsPath : undefined;
      const folder = at === undefined ? undefined : Object.keys(self.folderSettings).find((f) => at === f || at.startsWith(`${f}/`));
      return RESOURCE_SCOPED_KEYS.has(key) && folder !== undefined ? self.folderSettings[folder] : undefined;
    };
    return {
      window,
      l10n: { t: (message, ...args) => ENGLISH_L10N.t(self.l10nBundle?.[message] ?? message, ...args) },
      workspace: {
        getConfiguration: (section?: string, scope?: vscode.ConfigurationScope | null) => section !== undefined && section !== 'pfc' ? ({
          get: <T>(key: string) => {
            const all = self.otherSettings[section]?.[key];
            const at = scope && 'fsPath' in scope ? (scope as vscode.Uri).fsPath : undefined;
            const folder = at === undefined ? undefined : Object.keys(self.folderOtherSettings).find((f) => at === f || at.startsWith(`${f}/`));
            const own = folder === undefined ? undefined : self.folderOtherSettings[folder]?.[section];
            if (!own || !(key in own)) return all as T | undefined;
            const mine = own[key];
            const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
            return (isObject(mine) && isObject(all) ? { ...all, ...mine } : mine) as T | undefined;
          },
        }) as unknown as vscode.WorkspaceConfiguration : ({
          // As VS Code: a setting nobody set reads as package.json's default; `inspect` tells the default from a value set.
          get: <T>(key: string) => {
            if (RESOURCE_SCOPED_KEYS.has(key) && scope === undefined) self.configWarnings.push(`Accessing a resource scoped configuration without providing a resource is not expected: pfc.${key}`);
            const own = folderValuesAt(scope, key);
            return (own && key in own ? own[key] : key in self.workspaceSettings ? self.workspaceSettings[key] : key in self.settings ? self.settings[key] : DECLARED.get(key)?.default) as T | undefined;
          },
          has: (key: string) => key in self.settings || key in self.workspaceSettings || DECLARED.has(key),
          inspect: <T>(key: string) => {
            const own = folderValuesAt(scope, key);
            return DECLARED.has(key) ? {
              key: `pfc.${key}`, defaultValue: DECLARED.get(key)!.default as T,
              ...(key in self.settings ? { globalValue: self.settings[key] as T } : {}),
              ...(key in self.workspaceSettings ? { workspaceValue: self.workspaceSettings[key] as T } : {}),
              ...(own && key in own ? { workspaceFolderValue: own[key] as T } : {}),
            } : undefined;
          },
          // The workspace target writes the workspace's settings, any other the user's; `undefined` removes the value, as in VS Code.
          update: async (key: string, value: unknown, target?: unknown) => {
            const layer = target === 2 ? self.workspaceSettings : self.settings;
            if (value === undefined) delete layer[key];
            else layer[key] = value;
            self.settingUpdates.push({ key, value, target });
          },
        }) as unknown as vscode.WorkspaceConfiguration,
        getWorkspaceFolder: (u: vscode.Uri) => {
          const f = self.workspaceFolders.find((w) => u.fsPath === w || u.fsPath.startsWith(`${w}/`));
          return f === undefined ? undefined : ({ uri: uri(f), name: f.split('/').pop()!, index: 0 } as vscode.WorkspaceFolder);
        },
      },
      commands: {
        registerCommand: (id, fn) => {
          self.commands.set(id, fn);
          return { dispose: () => self.commands.delete(id) };
        },
        executeCommand: async <T>(command: string, ...args: unknown[]) => {
          self.executed.push({ command, args });
          return undefined as T;
        },
      },
      Uri: { file: uri, joinPath: (b, ...s) => uri([b.fsPath, ...s].join('/')) },
      ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 } as unknown as typeof vscode.ProgressLocation,
      StatusBarAlignment: { Left: 1, Right: 2 } as unknown as typeof vscode.StatusBarAlignment,
      ViewColumn: { Active: -1, Beside: -2, One: 1 } as unknown as typeof vscode.ViewColumn,
      ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 } as unknown as typeof vscode.ConfigurationTarget,
      QuickPickItemKind: { Separator: -1, Default: 0 } as unknown as typeof vscode.QuickPickItemKind,
    };
  }
}
