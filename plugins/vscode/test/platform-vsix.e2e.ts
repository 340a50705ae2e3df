/**
 * The platform .vsix (`npm run package` → vscode/pfc-vscode-linux-x64-<version>.vsix)
 * installed alone into a fresh VS Code: with no key, no pfc setting and no
 * `NODE_PATH`, a folder is corrected on the embedded emulator that the package
 * itself carries (node_modules/@pfc/emulator with sharp, the engine's models and
 * ffmpeg, and the extended-attributes module in-place runs use) — nothing from
 * the repository's node_modules.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { packAll } from '../../../scripts/packaging/npm.mjs';
import { vscodePlatformVsix } from '../../../scripts/packaging/vscode.mjs';
import { releaseInfo } from '../../../scripts/packaging/workspace.mjs';
import { expectFolderCorrected } from './e2e/checks';
import { SAMPLE_FILES, sessionForTests } from './e2e/session';
import { contextMenu, explorerRow, pickQuick, waitForToastText } from './e2e/ui';

describe('the platform .vsix, installed alone, corrects on the emulator it carries', () => {
  let work: string | undefined;
  // Registered before the session's hooks, so it runs after code-server (which installed from it) is closed.
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });
  const session = sessionForTests(() => {
    work = mkdtempSync(join(tmpdir(), 'pfc-platform-vsix-'));
    const { version } = releaseInfo();
    const { file } = vscodePlatformVsix({ tarballs: packAll(join(work, 'npm')), dest: work, version });
    return {
      settings: {},
      folders: ['album'],
      vsix: file,
      // Nothing outside the extension's own folder to find @pfc/emulator in.
      env: { NODE_PATH: '' },
    };
  }, 600_000);

  test('a fresh profile with no key corrects a folder on the embedded emulator', async () => {
    const s = session();
    const { page, workspace } = s;
    const album = join(workspace, 'album');
    await contextMenu(page, explorerRow(page, 'album'), 'Perfectly Clear: Correct Images in Folder…');
    await pickQuick(page, 'Pro');
    await waitForToastText(page, /results come from the local emulator/, 180_000);
    await waitForToastText(page, /Corrected 5 files/, 240_000);

    const out = join(album, 'corrected');
    await expectFolderCorrected(album, out, SAMPLE_FILES);
    expect(s.server.outputChannel()).toMatch(/embedded emulator started on http:\/\/127\.0\.0\.1:\d+\/v2/);
    // The emulator that ran is the one inside the installed extension: it is there, and no other
    // folder the extension looks in (its parents; NODE_PATH is empty) holds one.
    const extensions = join(s.server.root, 'extensions');
    const installed = readdirSync(extensions).filter((d) => d.startsWith('pfc.pfc-vscode-'));
    expect(installed).toHaveLength(1);
    const own = join(extensions, installed[0]!);
    expect(existsSync(join(own, 'node_modules', '@pfc', 'emulator', 'dist', 'index.js'))).toBe(true);
    for (let dir = dirname(own); dir !== dirname(dir); dir = dirname(dir)) {
      expect(existsSync(join(dir, 'node_modules', '@pfc', 'emulator')), dir).toBe(false);
    }
    // In-place runs keep a photo's Finder tags and ratings through a native module the package carries too:
    // it loads from the installed extension's own node_modules, with its binary for this platform.
    const xattr = createRequire(join(own, 'package.json'))('@napi-rs/xattr') as { listAttributesSync(path: string): string[] };
    expect(xattr.listAttributesSync(join(own, 'package.json'))).toEqual(expect.any(Array));
  });
});
