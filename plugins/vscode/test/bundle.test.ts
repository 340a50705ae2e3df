/**
 * The built bundle (npm test builds before testing) must load in VS Code's
 * extension host from the .vsix alone: it may require only Node built-ins and
 * `vscode` (the .vsix is packaged with --no-dependencies), and loading it must
 * not touch the network or need a VS Code.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';

const dist = join(__dirname, '..', 'dist');
const bundle = join(dist, 'extension.js');

describe('dist/extension.js', () => {
  test('is built (npm test builds first; or npm run build -w pfc-vscode)', () => {
    expect(existsSync(bundle), bundle).toBe(true);
  });

  test('requires only Node built-ins and vscode', () => {
    const src = readFileSync(bundle, 'utf8');
    const required = [...new Set([...src.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]!))];
    const allowed = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`), 'vscode']);
    expect(required.filter((r) => !allowed.has(r))).toEqual([]);
    expect(required).toContain('vscode');
  });

  test('carries neither sharp nor the emulator (native modules a platform-neutral .vsix cannot hold)', () => {
    const src = readFileSync(bundle, 'utf8');
    // @pfc/batch's main entry has no sharp import (the report is @pfc/batch/report).
    expect(src.match(/sharp/gi) ?? []).toEqual([]);
    // The emulator's code (an HTTP server) is not here: src/embedded.ts loads it at run time from a node_modules
    // folder by path. openBackend names it only in the lazy import of its embedded-emulator branch, which the
    // extension never takes (it always passes emulatorUrl); the other mention is embedded.ts's error message.
    expect(src.match(/import\("@pfc\/emulator"\)/g)).toEqual(['import("@pfc/emulator")']);
    expect(src.match(/require\("@pfc\/emulator"\)/g) ?? []).toEqual([]);
    expect(src.match(/createServer|the emulator is closing/g) ?? []).toEqual([]);
  });

  test('loads and exports activate/deactivate (vscode stubbed)', () => {
    const req = createRequire(bundle);
    const Module = req('node:module') as { _load: (request: string, ...rest: unknown[]) => unknown };
    const original = Module._load;
    Module._load = (request: string, ...rest: unknown[]) => (request === 'vscode' ? {} : original(request, ...rest));
    try {
      const ext = req(bundle) as { activate?: unknown; deactivate?: unknown };
      expect(typeof ext.activate).toBe('function');
      expect(typeof ext.deactivate).toBe('function');
    } finally {
      Module._load = original;
    }
  });

  test('the .vsix is built beside it', () => {
    expect(statSync(join(dist, 'pfc-vscode.vsix')).size).toBeGreaterThan(10_000);
  });
});
