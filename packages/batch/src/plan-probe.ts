/**
 * What planning reads of each file (plan.ts): its stat, its header sniffed, its real path, or what its manifest
 * remembers of it, a few files ahead of the walk.
 */
import type { Dirent, Stats } from 'node:fs';
import { lstatSync, statSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { basename, sep } from 'node:path';
import { NotRegularFileError, notRegularReason } from '@pfc/node-io';
import type { PlannedFile } from './plan';
import { isJudged } from './plan-survey';
import { type MediaInfo, sniffFileSync } from './sniff';

/** `dir`'s entry `name` (a folder entry's name holds no separator): `join` without its normalising pass, asked for every file. */
export function childPath(dir: string, name: string): string {
  return dir.endsWith(sep) ? `${dir}${name}` : `${dir}${sep}${name}`;
}

/** How many files' reads planning runs ahead of the walk. */
const PROBES_AHEAD = 16;
/** What planning reads of a file; an unreadable file is an `error`. `known`: the file as planned from the manifest (`media` came from it). */
/** `unsupported`: why a file that is no JPEG, PNG, MP4 or MOV is left out. */
export type Probe = { info: Stats; media: MediaInfo | undefined; unsupported?: string; real: Promise<string>; link: boolean; known: PlannedFile | undefined } | { error: Error };

/** The file, planned, when its manifest records it as unchanged (see `knownMediaLookup`); else undefined. */
export type KnownMedia = (path: string, info: Stats) => PlannedFile | undefined;

/** `realDir`: the real path of the file's folder, for a file that is not a symbolic link. */
export async function probe(path: string, realDir: Promise<string> | undefined, known: KnownMedia): Promise<Probe> {
  try {
    // One call for a plain file (its own stat is the target's); a link's target needs a second.
    // Synchronous, as the sniff: a stat and a header read from the page cache take microseconds,
    // each asynchronous call a turn in libuv's four threads (most of a rerun's planning).
    const own = lstatSync(path);
    const link = own.isSymbolicLink();
    const info = link ? statSync(path) : own;
    // A pipe or device given as an input, or swapped in since the folder was listed: never opened.
    const notRegular = notRegularReason(info);
    if (notRegular) return { error: new NotRegularFileError(path, notRegular) };
    // A link's manifest entry names the link, whose target may have been swapped: always sniffed.
    const remembered = link ? undefined : known(path, info);
    let unsupported: string | undefined;
    const media = remembered?.media ?? sniffFileSync(path, (why) => (unsupported = why));
    const real = realDir && !link ? realDir.then((d) => childPath(d, basename(path))) : realpath(path);
    // Awaited where it is needed (a failure there fails the plan, as before); never unhandled meanwhile.
    real.catch(() => undefined);
    return { info, media, ...(unsupported ? { unsupported } : {}), real, link, known: remembered };
  } catch (err) {
    return { error: err as Error };
  }
}

/**
 * The files' reads (stat, header, real path) run a few ahead of the walk, in order:
 * one at a time, a folder of small files spent most of its planning waiting on them.
 */
export function probeAhead(dir: string, entries: Dirent[], realDir: Promise<string>, known: KnownMedia, suffix: string | undefined): (path: string) => Promise<Probe> | undefined {
  const ahead = new Map<string, Promise<Probe>>();
  const candidates = entries.filter((e) => isJudged(e.name, suffix)).map((e) => childPath(dir, e.name));
  let queued = 0;
  const fill = (): void => {
    while (queued < candidates.length && ahead.size < PROBES_AHEAD) {
      const path = candidates[queued++]!;
      ahead.set(path, probe(path, realDir, known));
    }
  };
  return (path) => {
    fill();
    const p = ahead.get(path);
    ahead.delete(path);
    fill();
    return p;
  };
}
