/** package.json is the extension's table of contents: check it is complete and consistent. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DEFAULT_SETTINGS } from '../src/settings';

interface Manifest {
  main: string;
  engines: { vscode: string };
  activationEvents: string[];
  capabilities: { untrustedWorkspaces: { supported: string; restrictedConfigurations: string[] } };
  categories: string[];
  icon: string;
  contributes: {
    commands: { command: string; title: string; category: string }[];
    menus: Record<string, { command: string; when?: string }[]>;
    configuration: { properties: Record<string, { type: string | string[]; default: unknown; markdownDescription?: string; description?: string; scope: string; enum?: string[] }> };
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

  test('Explorer: folders, images and videos, .preset files', () => {
    const explorer = pkg.contributes.menus['explorer/context']!;
    const when = (id: string) => explorer.find((e) => e.command === id)?.when ?? '';
    expect(when('pfc.correctFolder')).toBe('explorerResourceIsFolder');
    expect(when('pfc.correctFiles')).toMatch(/!explorerResourceIsFolder/);
    const re = /resourceExtname =~ \/(.+)\/i/.exec(when('pfc.correctFiles'))!;
    const ext = new RegExp(re[1]!, 'i');
    for (const e of ['.jpg', '.JPEG', '.png', '.mp4', '.mov']) expect(ext.test(e), e).toBe(true);
    for (const e of ['.gif', '.txt', '.preset']) expect(ext.test(e), e).toBe(false);
    expect(when('pfc.uploadPreset')).toMatch(/resourceExtname == \.preset/);
    expect(pkg.contributes.menus['editor/title']!.map((e) => e.command)).toEqual(['pfc.correctFiles']);
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

  test('addresses a key is sent to cannot be set by a workspace', () => {
    const props = pkg.contributes.configuration.properties;
    for (const k of ['pfc.webApiUrl', 'pfc.containerUrl', 'pfc.bgrUrl', 'pfc.emulatorUrl']) expect(props[k]!.scope, k).toBe('application');
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
