/**
 * The owner marker of an emulator's scratch folder (scratch.ts), in a module
 * of Node's built-ins only: the process launcher (process.ts), loaded by a
 * host that must not load the emulator, reads it too.
 */
import { readFileSync, rmSync } from 'node:fs';
import { rm, readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';

/** The owner marker inside each scratch folder. */
export const OWNER_FILE = '.pfc-owner.json';

export interface Owner {
  pid: number;
  host: string;
  startedAt: string;
}

/** The marker's owner; undefined when there is no readable marker. */
export async function ownerOf(dir: string): Promise<Owner | undefined> {
  return readFile(join(dir, OWNER_FILE), 'utf8').then(parseOwner, () => undefined);
}

function parseOwner(text: string): Owner | undefined {
  try {
    const o = JSON.parse(text) as Partial<Owner>;
    return Number.isInteger(o.pid) && (o.pid as number) > 0 && typeof o.host === 'string' ? (o as Owner) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Removes `dir` if it is the scratch folder of process `pid` on this machine, which has ended without
 * removing it (killed): it holds copies of the user's photos. Anything else — a folder the user gave as
 * the data folder, one already removed — is left alone.
 */
export async function removeScratchDirOf(dir: string, pid: number): Promise<boolean> {
  if (!ownedBy(await ownerOf(dir), pid)) return false;
  await rm(dir, { recursive: true, force: true, maxRetries: 3, retryDelay: 50 });
  return true;
}

/**
 * {@link removeScratchDirOf}, synchronously: for an `exit` hook (whose handlers must be synchronous), when
 * this process ends by `process.exit` with the child it just killed.
 */
export function removeScratchDirOfSync(dir: string, pid: number): boolean {
  let owner: Owner | undefined;
  try {
    owner = parseOwner(readFileSync(join(dir, OWNER_FILE), 'utf8'));
  } catch {
    return false;
  }
  if (!ownedBy(owner, pid)) return false;
  // Retries: the killed child may still add a file while the folder is emptied.
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 });
  return true;
}

/** The marker names process `pid` on this machine. */
function ownedBy(owner: Owner | undefined, pid: number): boolean {
  return owner?.pid === pid && owner.host === hostname();
}
