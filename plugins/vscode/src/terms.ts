/**
 * How the engine's advice names this extension's choices. Its user sets
 * options in settings, and can type none of the CLI's flags, so every reason
 * and error (Output channel, summary, report) names a setting by its id, as
 * the extension's own messages do ("pfc.output.mode must be one of …"). The
 * extension has no way to replace a file it did not write, nor to wait for
 * another run's lock: the engine then advises what the user can do instead.
 */
import type { HostTerms } from '@pfc/batch';

export const VSCODE_TERMS: Readonly<HostTerms> = Object.freeze({
  anotherOutputFolder: 'another output folder name in pfc.output.folderName',
  shorterOutputPath: 'a shorter output folder name in pfc.output.folderName',
  shorterSuffix: 'a shorter suffix in pfc.output.suffix',
  inPlace: 'the in-place output mode',
  renamingModes: 'the folder or suffix output mode in pfc.output.mode',
  overwrite: undefined,
  waitForLock: undefined,
  containerUrl: 'pfc.containerUrl',
  bgrUrl: 'pfc.bgrUrl',
  instanceJobs: 'pfc.instanceJobs',
});
