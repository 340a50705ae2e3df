/** package.json is the extension's table of contents: check it is complete and consistent. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DEFAULT_SETTINGS, RESOURCE_SCOPED } from '../src/settings';
import { evaluateWhen, type WhenContext } from './when-clause';

interface Manifest {
  main: string;
  engines: { vscode: string };
  activationEvents: string[];
  capabilities: {
    untrustedWorkspaces: { supported: string; restrictedConfigurations: string[] };
    virtualWorkspaces?: boolean | { supported: boolean | 'limited'; description?: string };
  };
  categories: string[];
  icon: string;
  contributes: {
    commands: { command: string; title: string; category: string }[];
    menus: Record<string, { command: string; when?: string }[]>;
    configuration: { properties: Record<string, { type: string | string[]; default: unknown; markdownDescription?: string; description?: string; scope: string; enum?: string[]; enumDescriptions?: string[]; markdownEnumDescriptions?: string[] }> };
  };
  devDependencies: Record<string, string>;
}
const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as Manifest;
const commandIds = pkg.contributes.commands.map((c) => c.command);

describe('package.json contributes', () => {
  test('lazy activation: none listed (VS Code ≥ 1.74 activates on the contributed commands itself)', () => {
    expect(pkg.activationEvents).toEqual([]);
  });

  test('Restricted Mode: limited support; settings a workspace could turn against the user are restricted', () => {
    const u = pkg.capabilities.untrustedWorkspaces;
    expect(u.supported).toBe('limited');
    for (const k of ['pfc.backend', 'pfc.webApiUrl', 'pfc.containerUrl', 'pfc.bgrUrl', 'pfc.emulatorUrl', 'pfc.parameters', 'pfc.output.mode', 'pfc.output.folderName', 'pfc.output.suffix', 'pfc.confirmAboveFiles', 'pfc.skipAlreadyCorrected']) {
      expect(u.restrictedConfigurations, k).toContain(k);
    }
    for (const k of u.restrictedConfigurations) expect(Object.keys(pkg.contributes.configuration.properties)).toContain(k);
  });

  test('every command reads "Perfectly Clear" where it is shown: in its title (menus) or its category (palette), localised', () => {
    const nls = JSON.parse(readFileSync(join(__dirname, '..', 'package.nls.json'), 'utf8')) as Record<string, string>;
    const text = (v: string): string => (/^%(.+)%$/.test(v) ? nls[v.slice(1, -1)]! : v);
    const inMenus = new Set(Object.entries(pkg.contributes.menus).filter(([m]) => m !== 'commandPalette').flatMap(([, es]) => es.map((e) => e.command)));
    for (const c of pkg.contributes.commands) {
      expect(c.title, c.command).toMatch(/^%.+%$/);
      const title = text(c.title);
      expect(title, c.command).toBeTruthy();
      if (inMenus.has(c.command)) expect(title, c.command).toMatch(/^Perfectly Clear: /);
      else expect(text(c.category), c.command).toBe('Perfectly Clear');
    }
    // Every %key% of the manifest has its English text.
    for (const key of JSON.stringify(pkg).match(/"%[^%"]+%"/g) ?? []) expect(nls[key.slice(2, -2)], key).toBeTruthy();
  });

  test('every menu entry names a declared command', () => {
    for (const [menu, entries] of Object.entries(pkg.contributes.menus)) {
      for (const e of entries) expect(commandIds, `${menu} → ${e.command}`).toContain(e.command);
    }
  });

  /** The commands a menu shows for a resource (`when` evaluated as VS Code does). */
  const shown = (menu: string, context: WhenContext): string[] =>
    pkg.contributes.menus[menu]!.filter((e) => e.when === undefined || evaluateWhen(e.when, context)).map((e) => e.command);
  const folder = (scheme = 'file'): WhenContext => ({ resourceScheme: scheme, explorerResourceIsFolder: true, resourceExtname: '' });
  const file = (ext: string, scheme = 'file', multi = false): WhenContext => ({ resourceScheme: scheme, explorerResourceIsFolder: false, resourceExtname: ext, listMultiSelection: multi });

  test('Explorer: folders, images and videos, .preset files', () => {
    expect(shown('explorer/context', folder())).toEqual(['pfc.correctFolder', 'pfc.restoreOriginals']);
    for (const e of ['.jpg', '.JPEG', '.png']) expect(shown('explorer/context', file(e)), e).toEqual(['pfc.correctFiles', 'pfc.compareWithOriginal', 'pfc.restoreOriginals']);
    for (const e of ['.mp4', '.mov']) expect(shown('explorer/context', file(e)), e).toEqual(['pfc.correctFiles', 'pfc.restoreOriginals']);
    // Several images selected: correct them all; compare is for one.
    expect(shown('explorer/context', file('.jpg', 'file', true))).toEqual(['pfc.correctFiles', 'pfc.restoreOriginals']);
    expect(shown('explorer/context', file('.preset'))).toEqual(['pfc.uploadPreset']);
    for (const e of ['.gif', '.txt', '']) expect(shown('explorer/context', file(e)), e).toEqual([]);
    expect(shown('editor/title', file('.jpg'))).toEqual(['pfc.correctFiles']);
    expect(shown('editor/title', file('.mp4'))).toEqual([]);
  });

  // The extension reads and writes photos with Node's fs: a resource of another file system provider has an
  // fsPath that names nothing on disk. In a remote window (SSH, WSL, containers) the menus' resource keys say
  // `vscode-remote` while the extension, running on the remote, receives `file` URIs (microsoft/vscode-remote-release
  // and gitkraken/vscode-gitlens#3443: "using WSL/SSH gives `file` schemes via the window/editor APIs, but the
  // `resource*` context keys use `vscode-remote`").
  test('menus only for resources on disk or of a remote window, never of another file system (GitHub Repositories, SSH FS, memfs)', () => {
    for (const scheme of ['file', 'vscode-remote']) {
      expect(shown('explorer/context', folder(scheme)), scheme).toContain('pfc.correctFolder');
      expect(shown('explorer/context', file('.jpg', scheme)), scheme).toContain('pfc.correctFiles');
      expect(shown('editor/title', file('.png', scheme)), scheme).toEqual(['pfc.correctFiles']);
    }
    for (const scheme of ['vscode-vfs', 'ssh', 'memfs', 'untitled']) {
      expect(shown('explorer/context', folder(scheme)), scheme).toEqual([]);
      for (const e of ['.jpg', '.mp4', '.preset']) expect(shown('explorer/context', file(e, scheme)), `${scheme} ${e}`).toEqual([]);
      expect(shown('editor/title', file('.jpg', scheme)), scheme).toEqual([]);
    }
  });

  test('Command Palette: Compare with Original only while an image on disk is the active editor (it compares that file)', () => {
    const palette = (context: WhenContext): boolean => shown('commandPalette', context).includes('pfc.compareWithOriginal');
    for (const scheme of ['file', 'vscode-remote']) expect(palette({ resourceScheme: scheme, resourceExtname: '.jpg' }), scheme).toBe(true);
    expect(palette({ resourceScheme: 'file', resourceExtname: '.ts' })).toBe(false);
    expect(palette({})).toBe(false);
    expect(palette({ resourceScheme: 'vscode-vfs', resourceExtname: '.png' })).toBe(false);
  });

  // `config.<setting>` in a when clause reads the setting (code.visualstudio.com/api/references/when-clause-contexts,
  // "Check a setting in a when clause"). The BGR licence key is used by the `container+bgr` backend alone.
  test('Command Palette: Set BGR Licence Key only while pfc.backend is container+bgr', () => {
    const palette = (backend: string | undefined): boolean => shown('commandPalette', { 'config.pfc.backend': backend }).includes('pfc.setBgrLicenceKey');
    expect(palette('container+bgr')).toBe(true);
    for (const b of ['auto', 'hosted', 'container', 'emulator', undefined]) expect(palette(b), String(b)).toBe(false);
  });

  // Show Report and Retry Failed stay in the palette with no when clause: a context key set by a run is gone after a
  // window reload, while the last run (its report, its failures) survives it, and the extension activates only on a
  // command, so it could not set the key again before the user looks. Run without a run, each says so ("no run yet…").
  test('Command Palette: Show Report and Retry Failed always listed (each says when there is nothing to show or retry)', () => {
    for (const c of ['pfc.showReport', 'pfc.retryFailed']) expect(pkg.contributes.menus.commandPalette!.some((e) => e.command === c), c).toBe(false);
  });

  // VS Code's manifest schema (1.100, `capabilities.virtualWorkspaces`): "Declares whether the extension should be
  // enabled in virtual workspaces. … When false, this extension will be automatically disabled in virtual
  // workspaces. Default is true." Every command here reads or writes files on disk.
  test('virtual workspaces: declared unsupported, with the reason shown to the user', () => {
    const v = pkg.capabilities.virtualWorkspaces;
    expect(v).toMatchObject({ supported: false, description: expect.stringMatching(/^%.+%$/) });
  });

  test('every setting has type, default, description and scope, and matches what the code reads', () => {
    const props = pkg.contributes.configuration.properties;
    for (const [key, p] of Object.entries(props)) {
      expect(p.type, key).toBeDefined();
      expect(p.default, key).toBeDefined();
      expect(p.markdownDescription ?? p.description, key).toBeTruthy();
      expect(['application', 'machine', 'machine-overridable', 'window', 'resource', 'language-overridable'], key).toContain(p.scope);
    }
    const codeKeys: Record<Exclude<keyof typeof DEFAULT_SETTINGS, 'containerConfigured'>, string> = {
      backend: 'pfc.backend', webApiUrl: 'pfc.webApiUrl', containerUrl: 'pfc.containerUrl', bgrUrl: 'pfc.bgrUrl', instanceJobs: 'pfc.instanceJobs', emulatorUrl: 'pfc.emulatorUrl',
      parameters: 'pfc.parameters', defaultPreset: 'pfc.defaultPreset', outputMode: 'pfc.output.mode', askOutputEachRun: 'pfc.output.askEachRun',
      outputFolderName: 'pfc.output.folderName', outputSuffix: 'pfc.output.suffix', concurrency: 'pfc.concurrency',
      confirmAboveFiles: 'pfc.confirmAboveFiles', skipAlreadyCorrected: 'pfc.skipAlreadyCorrected',
    };
    expect(Object.keys(props).sort()).toEqual(Object.values(codeKeys).sort());
    for (const [field, key] of Object.entries(codeKeys)) expect(props[key]!.default, key).toEqual(DEFAULT_SETTINGS[field as keyof typeof DEFAULT_SETTINGS]);
    expect(props['pfc.backend']!.enum).toEqual(['auto', 'hosted', 'container', 'container+bgr', 'emulator']);
    expect(props['pfc.backend']!.default).toBe('auto');
  });

  test('the settings the code reads per folder are exactly those of resource scope', () => {
    const props = pkg.contributes.configuration.properties;
    const resource = Object.keys(props).filter((k) => props[k]!.scope === 'resource').map((k) => k.slice('pfc.'.length));
    expect([...RESOURCE_SCOPED].sort()).toEqual(resource.sort());
  });

  // Scopes (code.visualstudio.com/api/references/contribution-points, `scope`): `application` settings "can only be
  // configured in user settings"; `machine` ones "can be set in user or remote settings". Neither can be set by a
  // workspace. In a remote window the extension runs on the remote machine, where `127.0.0.1:8080` is that machine's
  // container: only `machine` lets the remote settings say so.
  test('addresses a key is sent to cannot be set by a workspace, and can be set per machine (remote settings)', () => {
    const props = pkg.contributes.configuration.properties;
    for (const k of ['pfc.webApiUrl', 'pfc.containerUrl', 'pfc.bgrUrl', 'pfc.instanceJobs', 'pfc.emulatorUrl']) expect(props[k]!.scope, k).toBe('machine');
  });

  // The Settings editor shows `enumDescriptions` as plain text (backticks and all); `markdownEnumDescriptions` renders them.
  test('enum descriptions that use Markdown are declared as markdownEnumDescriptions', () => {
    const nls = JSON.parse(readFileSync(join(__dirname, '..', 'package.nls.json'), 'utf8')) as Record<string, string>;
    for (const [key, p] of Object.entries(pkg.contributes.configuration.properties)) {
      for (const d of p.enumDescriptions ?? []) expect(nls[d.slice(1, -1)] ?? d, key).not.toMatch(/`|\*\*/);
      if (p.enum) expect((p.markdownEnumDescriptions ?? p.enumDescriptions)?.length, key).toBe(p.enum.length);
    }
  });

  test('no setting can hold a key', () => {
    expect(Object.keys(pkg.contributes.configuration.properties).filter((k) => /key|secret|token|licen[cs]e/i.test(k))).toEqual([]);
  });

  test('listing: engine matches @types/vscode, icon, categories, bundled main', () => {
    expect(pkg.engines.vscode).toBe('^1.100.0');
    expect(pkg.devDependencies['@types/vscode']).toBe('1.100.0');
    expect(pkg.icon).toBe('media/icon.png');
    expect(pkg.categories.length).toBeGreaterThan(0);
    expect(pkg.main).toBe('./dist/extension.js');
  });
});
