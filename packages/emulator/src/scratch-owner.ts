/**
 * The owner marker of an emulator's scratch folder (scratch.ts), in a module
 * of Node's built-ins only: the process launcher (process.ts), loaded by a
 * host that must not load the emulator, reads it too.
 */
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
  const owner = await ownerOf(dir);
  if (owner?.pid !== pid || owner.host !== hostname()) return false;
  await rm(dir, { recursive: true, force: true, maxRetries: 3, retryDelay: 50 });
  return true;
}
