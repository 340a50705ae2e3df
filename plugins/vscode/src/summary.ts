/** The end-of-run notification: what happened, in one sentence, and which buttons to offer. */
import type { BatchSummary } from '@pfc/batch';

export const ACTION_OPEN = 'Open Output Folder';
export const ACTION_REPORT = 'Show Report';
export const ACTION_RETRY = 'Retry Failed';

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** "Corrected 5 files in 3.2 s; 2 up to date; 1 failed." and the buttons that apply. */
export function summaryMessage(s: BatchSummary): { text: string; severity: 'info' | 'warning'; actions: string[] } {
  const parts: string[] = [];
  const head = s.interrupted ? 'Cancelled after correcting' : 'Corrected';
  parts.push(`${head} ${plural(s.corrected, 'file')} in ${(s.durationMs / 1000).toFixed(1)} s`);
  if (s.upToDate > 0) parts.push(`${s.upToDate} already up to date`);
  if (s.excluded > 0) parts.push(`${plural(s.excluded, 'path')} left out`);
  if (s.failed > 0) parts.push(`${s.failed} failed`);
  if (s.cancelled > 0) parts.push(`${s.cancelled} not finished`);
  const actions: string[] = [];
  if (s.corrected + s.upToDate > 0 && s.outputRoots.length > 0) actions.push(ACTION_OPEN);
  if (s.results.length > 0) actions.push(ACTION_REPORT);
  if (s.failed > 0) actions.push(ACTION_RETRY);
  return { text: `Perfectly Clear: ${parts.join('; ')}.`, severity: s.failed > 0 || s.interrupted ? 'warning' : 'info', actions };
}
