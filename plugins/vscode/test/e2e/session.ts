/**
 * One end-to-end session: a workspace of real photos (copied from the repo's
 * samples/), a fresh code-server with the built .vsix installed, and Debian's
 * Chromium on the workbench. `close()` removes everything it made.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../../../test/e2e/browser';
import { startCodeServer, type CodeServer } from './code-server';
import { distrust, waitForWorkbench } from './ui';
import { SAMPLE_FILES, SAMPLES } from '../samples';

const here = dirname(fileURLToPath(import.meta.url));
export const PLUGIN_DIR = resolve(here, '../..');
export const REPO_DIR = resolve(PLUGIN_DIR, '../..');
export const VSIX = join(PLUGIN_DIR, 'dist', 'pfc-vscode.vsix');
export { SAMPLE_FILES, SAMPLES };

export interface Session {
  workspace: string;
  server: CodeServer;
  page: Page;
  close(): Promise<void>;
}

/** Copy the samples into `<workspace>/<folder>/` (nested: objects/, outdoors/, portraits/). */
export function addPhotoFolder(workspace: string, folder: string): string {
  const dir = join(workspace, folder);
  for (const rel of SAMPLE_FILES) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    cpSync(join(SAMPLES, rel), join(dir, rel));
  }
  return dir;
}

export interface SessionOptions {
  codeServerBin: string;
  /** User settings. */
  settings: Record<string, unknown>;
  /** Photo folders to create in the workspace. */
  folders: string[];
  /** The workspace's own `.vscode/settings.json`. */
  workspaceSettings?: Record<string, unknown>;
  /**
   * Open a multi-root workspace (`<workspace>/photos.code-workspace`) whose
   * folders are `folders`, instead of the workspace folder; each folder named
   * here gets these settings in its own `.vscode/settings.json`.
   */
  multiRoot?: Record<string, Record<string, unknown>>;
  /** Extra environment of code-server (and so of the extension host). */
  env?: Record<string, string>;
  /** Open the folder in Restricted Mode: trust is enabled and the start-up question answered "don't trust". */
  restricted?: boolean;
  /** The .vsix to install (default: the universal one the build makes, `VSIX`). */
  vsix?: string;
}

export async function openSession(options: SessionOptions): Promise<Session> {
  const vsix = options.vsix ?? VSIX;
  if (!existsSync(vsix)) throw new Error(`${vsix} is missing: run "npm run build -w pfc-vscode" (npm run test:e2e builds it)`);
  const workspace = mkdtempSync(join(tmpdir(), 'pfc-vscode-ws-'));
  for (const f of options.folders) addPhotoFolder(workspace, f);
  if (options.workspaceSettings) {
    mkdirSync(join(workspace, '.vscode'));
    writeFileSync(join(workspace, '.vscode', 'settings.json'), JSON.stringify(options.workspaceSettings, null, 2));
  }
  if (options.multiRoot) {
    for (const [f, settings] of Object.entries(options.multiRoot)) {
      mkdirSync(join(workspace, f, '.vscode'));
      writeFileSync(join(workspace, f, '.vscode', 'settings.json'), JSON.stringify(settings, null, 2));
    }
    writeFileSync(join(workspace, 'photos.code-workspace'), JSON.stringify({ folders: options.folders.map((f) => ({ path: f })) }, null, 2));
  }
  const server = await startCodeServer({
    bin: options.codeServerBin, vsix, settings: options.settings, ...(options.env ? { env: options.env } : {}), trust: options.restricted ? 'ask' : 'off',
  });
  const profile = mkdtempSync(join(tmpdir(), 'pfc-chromium-'));
  let context: BrowserContext | undefined;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1400, height: 900 },
    });
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(options.multiRoot ? server.workspaceUrl(join(workspace, 'photos.code-workspace')) : server.folderUrl(workspace));
    if (options.restricted) await distrust(page);
    await waitForWorkbench(page, [...options.folders].sort()[0]!);
    const ctx = context;
    return {
      workspace,
      server,
      page,
      close: async () => {
        await ctx.close().catch(() => undefined);
        await server.close();
        rmSync(profile, { recursive: true, force: true });
        rmSync(workspace, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await context?.close().catch(() => undefined);
    await server.close();
    rmSync(profile, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
    throw err;
  }
}
