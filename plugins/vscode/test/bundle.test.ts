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
    // @pfc/batch's main entry has no sharp import (the report is @pfc/batch/report), and the extension host
    // never loads the emulator installation's either: a grey photo's colour copy is made by core's pure
    // conversions on a worker thread, so a crash of the image library cannot take other extensions down.
    expect(src.match(/sharp/gi) ?? []).toEqual([]);
    // The emulator's code (an HTTP server) is not here: src/embedded.ts loads it at run time from a node_modules
    // folder by path. openBackend names it only in the lazy import of its embedded-emulator branch, which the
    // extension never takes (it passes its own embedded emulator, or emulatorUrl); the other mention is embedded.ts's error message.
    expect(src.match(/import\("@pfc\/emulator[^"]*"\)/g)).toEqual(['import("@pfc/emulator/process")']);
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

  test('the .vsix carries the runtime messages (l10n/bundle.l10n.json, where package.json "l10n" points)', () => {
    const names = zipEntryNames(readFileSync(join(dist, 'pfc-vscode.vsix')));
    expect(names).toContain('extension/package.json');
    expect(names).toContain('extension/l10n/bundle.l10n.json');
  });

  test('the .vsix carries the JPEG rewrites\' worker beside the bundle, where the bundled @pfc/batch looks for it', () => {
    expect(zipEntryNames(readFileSync(join(dist, 'pfc-vscode.vsix')))).toContain('extension/dist/rewrite-worker.js');
    // The bundle resolves it against its own file: import.meta.url, shimmed in CommonJS to __filename.
    const src = readFileSync(bundle, 'utf8');
    expect(src).toContain('"rewrite-worker.js"');
    expect(src).toContain('file:${__filename}');
    // The worker requires only Node built-ins (core and node-io are bundled into it).
    const worker = readFileSync(join(dist, 'rewrite-worker.js'), 'utf8');
    const required = [...new Set([...worker.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]!))];
    expect(required.filter((r) => !builtinModules.includes(r.replace(/^node:/, '')))).toEqual([]);
  });
});

/** The file names in a zip's central directory (a .vsix is a zip); enough to check what was packaged. */
function zipEntryNames(zip: Buffer): string[] {
  // End of central directory: signature 0x06054b50, within the last 64 KiB (its comment is at most 65535 bytes).
  let eocd = zip.length - 22;
  while (eocd >= 0 && zip.readUInt32LE(eocd) !== 0x06054b50) eocd--;
  if (eocd < 0) throw new Error('not a zip file');
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`bad central directory entry at ${at}`);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    names.push(zip.toString('utf8', at + 46, at + 46 + nameLength));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return names;
}
