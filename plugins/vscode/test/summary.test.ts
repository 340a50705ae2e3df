/**
 * The end-of-run notification's words when nothing needed doing: what happened ("already up to date; nothing
 * was sent"), not "Corrected 0 files in 0.0 s"; the paths left out still said. A run that corrected, failed,
 * was cancelled or stopped itself keeps its counts.
 */
import { describe, expect, test } from 'vitest';
import type { RunCounts } from '../src/last-run';
import { summaryMessage } from '../src/summary';
import { ENGLISH_L10N } from './fake-vscode';

const NONE: RunCounts = { corrected: 0, skipped: 0, upToDate: 0, excluded: 0, failed: 0, cancelled: 0, bytesIn: 0, bytesOut: 0, durationMs: 12, interrupted: false, outputRoots: ['/photos/corrected'] };
const text = (counts: Partial<RunCounts>): string => summaryMessage({ ...NONE, ...counts }, ENGLISH_L10N).text;

describe('a rerun with nothing to do', () => {
  test('says every file is up to date and nothing was sent, with the paths left out', () => {
    expect(text({ upToDate: 5 })).toBe('Perfectly Clear: All 5 files are already up to date; nothing was sent.');
    expect(text({ upToDate: 1 })).toBe('Perfectly Clear: The file is already up to date; nothing was sent.');
    expect(text({ upToDate: 5, excluded: 2 })).toBe('Perfectly Clear: All 5 files are already up to date; nothing was sent; 2 paths left out.');
    const { severity, actions } = summaryMessage({ ...NONE, upToDate: 5 }, ENGLISH_L10N);
    expect({ severity, actions }).toEqual({ severity: 'info', actions: ['Open Output Folder', 'Show Report'] });
  });

  test('a run that did anything else keeps its counts', () => {
    expect(text({ upToDate: 3, corrected: 2, durationMs: 3200 })).toBe('Perfectly Clear: Corrected 2 files in 3.2 s; 3 already up to date.');
    expect(text({ upToDate: 3, failed: 2 })).toBe('Perfectly Clear: Corrected 0 files in 0.0 s; 3 already up to date; 2 failed.');
    expect(text({ upToDate: 3, failed: 1, refused: 1 })).toBe('Perfectly Clear: Corrected 0 files in 0.0 s; 3 already up to date; 1 file left as is (see the report for why).');
    expect(text({ upToDate: 3, cancelled: 2, interrupted: true })).toBe('Perfectly Clear: Cancelled after correcting 0 files in 0.0 s; 3 already up to date; 2 not finished.');
    expect(text({ upToDate: 3, stoppedBecause: 'the service refused the credentials.' })).toBe('Perfectly Clear: Corrected 0 files in 0.0 s; 3 already up to date; stopped early: the service refused the credentials.');
  });
});
