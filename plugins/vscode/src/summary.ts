/** The end-of-run notification: what happened, in one sentence, and which buttons to offer. */
import { setKeyButton, type KeyName } from './keys';
import type { RunCounts } from './last-run';
import type { VscodeL10n } from './vscode-api';

/**
 * The platforms with a platform package of the extension, which carries the
 * module for extended attributes: scripts/packaging/vscode.mjs builds one for
 * the machine that packages, and the releases are packaged on Linux x64 only.
 */
const PLATFORM_PACKAGES: ReadonlySet<string> = new Set(['linux-x64']);

/** Whether this machine has a platform package to advise (read at each summary: tests stub the platform). */
function hasPlatformPackage(): boolean {
  return PLATFORM_PACKAGES.has(`${process.platform}-${process.arch}`);
}

/** The summary's buttons in the display language (the choice comes back as the translated label). */
export function summaryActions(l10n: VscodeL10n): { open: string; report: string; retry: string } {
  return { open: l10n.t('Open Output Folder'), report: l10n.t('Show Report'), retry: l10n.t('Retry Failed') };
}

/**
 * "Corrected 5 files in 3.2 s; 2 already up to date; 1 failed." (or, when
 * nothing needed doing, "All 5 files are already up to date; nothing was
 * sent."; and why the run stopped itself, if it did) and the buttons
 * that apply. Each phrase is a whole message (singular and plural apart), so
 * translators never get fragments glued together in English order.
 * `refusedKey`: the service refused that key and the run stopped on it.
 */
export function summaryMessage(s: RunCounts, l10n: VscodeL10n, refusedKey?: KeyName): { text: string; severity: 'info' | 'warning'; actions: string[] } {
  const { t } = l10n;
  const seconds = (s.durationMs / 1000).toFixed(1);
  const parts: string[] = [];
  const refused = s.refused ?? 0;
  const retryable = s.failed - refused;
  // Nothing needed doing: "Corrected 0 files in 0.0 s; 5 already up to date" read as if the run had fallen short.
  const nothingToDo = !s.interrupted && !s.stoppedBecause && s.corrected + s.failed + s.cancelled === 0 && s.upToDate > 0;
  if (nothingToDo) {
    parts.push(s.upToDate === 1 ? t('The file is already up to date; nothing was sent') : t('All {0} files are already up to date; nothing was sent', s.upToDate));
  } else {
    if (s.interrupted) parts.push(s.corrected === 1 ? t('Cancelled after correcting 1 file in {0} s', seconds) : t('Cancelled after correcting {0} files in {1} s', s.corrected, seconds));
    else parts.push(s.corrected === 1 ? t('Corrected 1 file in {0} s', seconds) : t('Corrected {0} files in {1} s', s.corrected, seconds));
    if (s.upToDate > 0) parts.push(t('{0} already up to date', s.upToDate));
  }
  if (s.excluded > 0) parts.push(s.excluded === 1 ? t('1 path left out') : t('{0} paths left out', s.excluded));
  if (retryable > 0) parts.push(t('{0} failed', retryable));
  // Left as is on purpose (already corrected, would replace another file…): a retry would refuse them again.
  if (refused > 0) parts.push(refused === 1 ? t('1 file left as is (see the report for why)') : t('{0} files left as is (see the report for why)', refused));
  if (s.cancelled > 0) parts.push(t('{0} not finished', s.cancelled));
  // The run stopped itself (a refused key, an unreachable service): without the reason the counts alone do not say what to fix.
  if (s.stoppedBecause) parts.push(t('stopped early: {0}', s.stoppedBecause.replace(/\.+$/, '')));
  // In place without the native module (the universal .vsix): whatever tags the photos replaced carried are gone; the user must
  // know. The run cannot read them, so it cannot say any existed: the installation is what is said, with the fix this platform has.
  if (s.attributesNotKept) {
    parts.push(hasPlatformPackage()
      ? t('this installation cannot keep the Finder tags, ratings and comments of the photos it replaces (it lacks the module for them: install the Linux x64 package of the extension or the pfc command-line tools)')
      : t('this installation cannot keep the Finder tags, ratings and comments of the photos it replaces (it lacks the module for them: install the pfc command-line tools)'));
  }
  const action = summaryActions(l10n);
  const actions: string[] = [];
  // What fixes a refused key comes first: the button every key notification offers.
  if (refusedKey) actions.push(setKeyButton(l10n, refusedKey));
  if (s.corrected + s.upToDate > 0 && s.outputRoots.length > 0) actions.push(action.open);
  if (s.corrected + s.upToDate + s.failed + s.cancelled > 0) actions.push(action.report);
  if (retryable > 0) actions.push(action.retry);
  return { text: t('Perfectly Clear: {0}.', parts.join(t('; '))), severity: s.failed > 0 || s.interrupted || s.stoppedBecause || s.attributesNotKept ? 'warning' : 'info', actions };
}
