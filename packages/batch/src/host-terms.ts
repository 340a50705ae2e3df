/**
 * How a host names the choices its user has, for the advice that ends the
 * engine's reasons and errors ("…; use --overwrite to replace it"). The CLI
 * and the VS Code extension share every message; each says what happened in
 * the same words, and its advice in the host's: flags for the CLI, settings
 * for VS Code, whose user can type no flag. This is the only module of the
 * engine that spells a flag of an option both hosts have (`no-flags.test.ts`
 * guards that; options only the CLI has keep theirs in their own messages).
 */

/** The names of a host's choices, each a phrase that fits the sentences below. */
export interface HostTerms {
  /** Another output folder of a mirror run, after "choose". CLI: `another --out folder`. */
  anotherOutputFolder: string;
  /** An output folder whose paths are shorter, after "choose". CLI: `an output folder nearer the root (--out)`. */
  shorterOutputPath: string;
  /** A shorter suffix, after "choose". CLI: `a shorter --suffix`. */
  shorterSuffix: string;
  /** The in-place mode, as the subject of a sentence. CLI: `--in-place`. */
  inPlace: string;
  /** The modes that give a result a name of its own (mirror, suffix), after "use". CLI: `--out or --suffix`. */
  renamingModes: string;
  /** The option that replaces files pfc did not write. CLI: `--overwrite`; undefined: the host has none, and the advice is to move the file. */
  overwrite: string | undefined;
  /** The option that waits for another run's lock. CLI: `--wait`; undefined: the host has none. */
  waitForLock: string | undefined;
  /** The colour-correction container addresses, as named in errors about them. CLI: `--container-url`. */
  containerUrl: string;
  /** The background-removal container addresses. CLI: `--bgr-url`. */
  bgrUrl: string;
  /** The files at once per self-hosted instance. CLI: `--instance-jobs`. */
  instanceJobs: string;
}

/** The `pfc` CLI's flags: the default of every option that takes terms. */
export const CLI_TERMS: Readonly<HostTerms> = Object.freeze({
  anotherOutputFolder: 'another --out folder',
  shorterOutputPath: 'an output folder nearer the root (--out)',
  shorterSuffix: 'a shorter --suffix',
  inPlace: '--in-place',
  renamingModes: '--out or --suffix',
  overwrite: '--overwrite',
  waitForLock: '--wait',
  containerUrl: '--container-url',
  bgrUrl: '--bgr-url',
  instanceJobs: '--instance-jobs',
});

/** What to do about a file pfc did not write where a result goes: replace it, or where the host cannot, move it. */
export function replaceAdvice(terms: HostTerms = CLI_TERMS): string {
  return terms.overwrite ? `use ${terms.overwrite} to replace it` : 'move or rename it, then run again';
}

/** What to do about a folder where a result goes, which no option replaces. */
export function folderInTheWayAdvice(terms: HostTerms = CLI_TERMS): string {
  const notOverwrite = terms.overwrite ? `${terms.overwrite} replaces files, never folders, so it would not help: ` : '';
  return `${notOverwrite}move or rename the folder (or choose ${terms.anotherOutputFolder}), then run again`;
}

/** What to do when results would land on an input. */
export function outputOverInputAdvice(terms: HostTerms = CLI_TERMS): string {
  return `choose ${terms.anotherOutputFolder} (or ${terms.inPlace} to replace originals)`;
}

/** What to do when another run holds a folder's lock. */
export function lockedAdvice(terms: HostTerms = CLI_TERMS): string {
  const wait = terms.waitForLock ? `pass ${terms.waitForLock}, ` : '';
  return `wait for it to finish, ${wait}or delete the lock file if no pfc is running there`;
}
