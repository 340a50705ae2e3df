/**
 * A fresh, throw-away code-server (a real VS Code 1.100.3) for one test file:
 * its own user-data, extensions, HOME, XDG and TMPDIR folders, the .vsix
 * installed first, started detached in its own process group and killed as a
 * group (file watchers otherwise outlive it). See shared/recipes/vscode-e2e.md.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface CodeServerOptions {
  /** code-server's `out/node/entry.js` (from scripts/setup-e2e.mjs). */
  bin: string;
  vsix: string;
  /** User settings written before start. */
  settings: Record<string, unknown>;
  /** Extra environment of code-server and its extension host. */
  env?: Record<string, string>;
  /**
   * Workspace trust: `off` (default) starts with it disabled, as most tests
   * want; `ask` enables it, so VS Code asks at start whether to trust the folder.
   */
  trust?: 'off' | 'ask';
}

export interface CodeServer {
  url: string;
  /** The run's scratch root (user data, extensions, HOME…). */
  root: string;
  userDataDir: string;
  /** Every file under the user-data folder's `logs/` (extension host logs, Output channels), joined. */
  logs(): string;
  /** Text of the "Perfectly Clear" Output channel as written to disk by VS Code. */
  outputChannel(): string;
  /** Open `folder` in the browser: the address to navigate to. */
  folderUrl(folder: string): string;
  /**
   * Open the multi-root workspace of a `.code-workspace` file: the web
   * workbench's workspace provider reads `?workspace=` as `?folder=` (code-server
   * 4.100.3, lib/vscode/out/vs/code/browser/workbench/workbench.js: query
   * parameters `ew`, `folder`, `workspace`).
   */
  workspaceUrl(file: string): string;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Poll until `check` is true, at most `timeoutMs`. */
export async function waitFor(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 60_000, everyMs = 200): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

function walk(dir: string): string[] {
  let out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out = out.concat(walk(p));
    else out.push(p);
  }
  return out;
}

export async function startCodeServer(options: CodeServerOptions): Promise<CodeServer> {
  const root = mkdtempSync(join(tmpdir(), 'pfc-code-server-'));
  const dirs = {
    userData: join(root, 'user-data'),
    extensions: join(root, 'extensions'),
    home: join(root, 'home'),
    config: join(root, 'xdg-config'),
    cache: join(root, 'xdg-cache'),
    data: join(root, 'xdg-data'),
    tmp: join(root, 'tmp'),
  };
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
  mkdirSync(join(dirs.userData, 'User'), { recursive: true });
  writeFileSync(
    join(dirs.userData, 'User', 'settings.json'),
    JSON.stringify({
      'workbench.startupEditor': 'none',
      'security.workspace.trust.enabled': options.trust === 'ask',
      'workbench.tips.enabled': false,
      'telemetry.telemetryLevel': 'off',
      'extensions.autoCheckUpdates': false,
      'extensions.autoUpdate': false,
      // A single click would open a preview editor, and the Explorer then selects that
      // editor's file (auto reveal) whenever the editor finishes opening: on a loaded
      // machine that lands after the test's Ctrl+click and undoes a multi-selection.
      'workbench.list.openMode': 'doubleClick',
      'explorer.autoReveal': false,
      ...options.settings,
    }, null, 2),
  );
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: dirs.home,
    XDG_CONFIG_HOME: dirs.config,
    XDG_CACHE_HOME: dirs.cache,
    XDG_DATA_HOME: dirs.data,
    TMPDIR: dirs.tmp,
    ...options.env,
  };
  const common = ['--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions];
  await run(process.execPath, [options.bin, ...common, '--install-extension', options.vsix], { env, timeout: 120_000 });

  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [
      options.bin, '--config', '/dev/null', '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, ...common,
      '--disable-telemetry', '--disable-update-check', ...(options.trust === 'ask' ? [] : ['--disable-workspace-trust']), '--disable-getting-started-override', '--ignore-last-opened',
    ],
    { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor('code-server /healthz', async () => {
      if (child.exitCode !== null) throw new Error(`code-server exited (${child.exitCode}): ${output.slice(-2000)}`);
      return fetch(`${url}/healthz`).then((r) => r.ok, () => false);
    }, 90_000, 250);
  } catch (err) {
    killGroup(child);
    throw err;
  }

  const logsDir = join(dirs.userData, 'logs');
  const files = (): string[] => {
    try {
      return walk(logsDir);
    } catch {
      return [];
    }
  };
  return {
    url,
    root,
    userDataDir: dirs.userData,
    logs: () => files().map((f) => readFileSync(f, 'utf8')).join('\n'),
    outputChannel: () => files().filter((f) => /Perfectly Clear\.log$/.test(f) && statSync(f).isFile()).map((f) => readFileSync(f, 'utf8')).join('\n'),
    folderUrl: (folder) => `${url}/?folder=${encodeURIComponent(folder)}`,
    workspaceUrl: (file) => `${url}/?workspace=${encodeURIComponent(file)}`,
    close: async () => {
      killGroup(child);
      await waitFor('code-server to exit', () => child.exitCode !== null || child.signalCode !== null, 15_000).catch(() => undefined);
      rmSync(root, { recursive: true, force: true });
    },
  };
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
