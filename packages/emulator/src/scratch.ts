/**
 * Scratch folders of an emulator that was given no data folder: they hold
 * copies of the user's photos, so they must not outlive the process. Removed
 * by `close()`, by an exit hook when the process ends another way
 * (`process.exit` on a second Ctrl-C, an uncaught error), and, when the
 * process was killed outright (SIGKILL, power loss), by its launcher when it
 * was started with `startEmulatorProcess` (process.ts), else by the next
 * emulator started on the machine: each folder carries an owner marker (pid, host), and
 * only a folder with our prefix, our marker, our user id and a dead owner is
 * ever removed.
 */
import { rmSync } from 'node:fs';
import { lstat, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { processAlive } from '@pfc/node-io';
import { type Owner, OWNER_FILE, ownerOf } from './scratch-owner';

export { OWNER_FILE } from './scratch-owner';

/** Name prefix of scratch folders in the system's temporary folder. */
export const SCRATCH_PREFIX = 'pfc-emulator-';
/** Folders to remove when the process exits without closing them. */
const live = new Set<string>();
let hookInstalled = false;

/**
 * Create a scratch folder (after removing stale ones of dead processes) and
 * arrange its removal on exit.
 * @returns the folder's path.
 */
export async function createScratchDir(): Promise<string> {
  await removeStaleScratchDirs().catch(() => undefined);
  const dir = await mkdtemp(join(tmpdir(), SCRATCH_PREFIX));
  const owner: Owner = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
  await writeFile(join(dir, OWNER_FILE), JSON.stringify(owner));
  live.add(dir);
  installExitHook();
  return dir;
}

/** Remove a scratch folder made by {@link createScratchDir}. */
export async function removeScratchDir(dir: string): Promise<void> {
  // Still listed while the removal runs: a process.exit() meanwhile (second Ctrl-C) finishes it in the exit hook.
  await rm(dir, { recursive: true, force: true });
  live.delete(dir);
}

function installExitHook(): void {
  if (hookInstalled) return;
  hookInstalled = true;
  // 'exit' handlers must be synchronous.
  process.on('exit', () => {
    for (const dir of live) {
      try {
        // Retries: writes still finishing in libuv's thread pool may add a file while the folder is emptied.
        rmSync(dir, { recursive: true, force: true, maxRetries: 3, retryDelay: 10 });
      } catch {
        // Nothing more can be done while exiting; the next emulator start removes it (owner marker, dead pid).
      }
    }
  });
}

/**
 * Remove scratch folders left by emulators that were killed: name with our
 * prefix, a real folder (not a link), owned by this user, holding our marker
 * whose host is this machine and whose pid is no longer running.
 * @returns the folders removed.
 */
export async function removeStaleScratchDirs(root: string = tmpdir()): Promise<string[]> {
  const removed: string[] = [];
  const names = await readdir(root).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(SCRATCH_PREFIX)) continue;
    const dir = join(root, name);
    if (live.has(dir) || !(await isStale(dir))) continue;
    await rm(dir, { recursive: true, force: true });
    removed.push(dir);
  }
  return removed;
}

async function isStale(dir: string): Promise<boolean> {
  const info = await lstat(dir).catch(() => undefined);
  if (!info?.isDirectory()) return false;
  if (process.getuid && info.uid !== process.getuid()) return false;
  const owner = await ownerOf(dir);
  return owner !== undefined && owner.host === hostname() && !processAlive(owner.pid);
}
