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
import { afterAll, afterEach, beforeAll, type TestContext } from 'vitest';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../../../test/e2e/browser';
// @ts-expect-error a plain .mjs script without types
import { setupCodeServer } from '../../scripts/setup-e2e.mjs';
import { startCodeServer, type CodeServer } from './code-server';
import { distrust, recordToasts, waitForWorkbench } from './ui';
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

/** The options of `openSession` but code-server's path, which `sessionForTests` finds (installing it if missing) itself. */
export type SessionSetup = Omit<SessionOptions, 'codeServerBin'>;

/**
 * The session of a test file (or `describe` block): opened before its tests,
 * with every toast recorded from then on; after a failed test, a screenshot
 * and the extension's log (`diagnose`); closed after the tests. `setup` runs
 * in the `beforeAll`, so it may read what earlier hooks started (an emulator's
 * URL) and prepare files; `timeoutMs` bounds that hook (default: the config's).
 */
export function sessionForTests(setup: () => SessionSetup | Promise<SessionSetup>, timeoutMs?: number): () => Session {
  let s: Session | undefined;
  beforeAll(async () => {
    const codeServerBin = (setupCodeServer as () => string)();
    s = await openSession({ codeServerBin, ...(await setup()) });
    await recordToasts(s.page);
  }, timeoutMs);
  afterEach((ctx) => diagnose(ctx, s));
  afterAll(async () => {
    await s?.close();
  });
  return () => {
    if (!s) throw new Error('the session opens before the tests');
    return s;
  };
}

/** On a failed test: a screenshot of the workbench and the extension's log, to see what the user would have seen. */
async function diagnose(ctx: TestContext, s: Session | undefined): Promise<void> {
  if (ctx.task.result?.state !== 'fail' || !s) return;
  const shot = join(REPO_DIR, 'test-results', `vscode-${ctx.task.name.replace(/\W+/g, '-').slice(0, 60)}.png`);
  mkdirSync(join(REPO_DIR, 'test-results'), { recursive: true });
  await s.page.screenshot({ path: shot }).catch(() => undefined);
  console.error(`screenshot: ${shot}\n--- Perfectly Clear output channel ---\n${s.server.outputChannel()}`);
}
