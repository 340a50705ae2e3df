import { describe, expect, test } from 'vitest';
import type { CorrectionBackend, PresetRecord } from '@pfc/core';
import { listCustomPresets, presetItems } from '../src/presets';
import { ProgressModel, logLine } from '../src/progress';
import { ENGLISH_L10N } from './fake-vscode';

const SEP = -1 as never;
const labels = (items: { label: string; kind?: unknown }[]) => items.map((i) => (i.kind === SEP ? `— ${i.label}` : i.label));

describe('preset picker items', () => {
  test('built-in groups first, the default leading and marked, then custom presets', () => {
    const items = presetItems(['Warm', 'Pro', 'Cool'], 'Pro', SEP, ENGLISH_L10N);
    expect(labels(items)).toEqual(['— Built-in AI preset groups', 'Pro', 'Universal', 'School and Sports', 'Attractions and Cruise Lines', '— Your custom presets', 'Warm', 'Cool']);
    expect(items[1]!.description).toBe('default');
  });

  test('a custom default leads the custom group', () => {
    const items = presetItems(['Warm', 'Cool'], 'Cool', SEP, ENGLISH_L10N);
    expect(labels(items).slice(-3)).toEqual(['— Your custom presets', 'Cool', 'Warm']);
    expect(items.at(-2)!.description).toBe('custom preset · default');
  });

  test('a default that is not listed (offline, other account) is still offered first', () => {
    expect(labels(presetItems([], 'Studio', SEP, ENGLISH_L10N))[0]).toBe('Studio');
  });

  test('custom presets that fail to list leave the built-ins and say why', async () => {
    const backend = {
      kind: 'web',
      validate: () => ({ params: {}, errors: [], warnings: [] }),
      correct: () => Promise.reject(new Error('unused')),
      listPresets: () => ({
        async *[Symbol.asyncIterator](): AsyncIterator<PresetRecord> {
          yield { presetId: '1', name: 'A' } as PresetRecord;
          throw new Error('503 Service Unavailable');
        },
      }),
    } satisfies CorrectionBackend;
    expect(await listCustomPresets(backend)).toEqual({ names: ['A'], error: '503 Service Unavailable' });
  });
});

describe('progress model', () => {
  test('counts finished files of every kind and reports increments adding to 100 %', () => {
    const m = new ProgressModel(4);
    const ids = (rel: string) => ({ input: `/p/${rel}`, rel });
    let total = 0;
    total += m.apply({ type: 'skipped', input: '/p/notes.txt', code: 'unsupported', reason: 'x' });
    total += m.apply({ type: 'skipped', ...ids('a.jpg'), code: 'up-to-date', reason: 'same' });
    total += m.apply({ type: 'start', ...ids('b.jpg'), output: '/o/b.jpg', bytes: 10, reason: 'new' });
    expect(m.message()).toBe('1/4 · b.jpg');
    total += m.apply({ type: 'corrected', ...ids('b.jpg'), output: '/o/b.jpg', bytesIn: 10, bytesOut: 12, durationMs: 5, warnings: [] });
    total += m.apply({ type: 'failed', ...ids('c.jpg'), error: 'FAILED', errorName: 'JobFailedError' });
    total += m.apply({ type: 'cancelled', ...ids('d.jpg') });
    expect({ done: m.done, corrected: m.corrected, failed: m.failed, upToDate: m.upToDate }).toEqual({ done: 4, corrected: 1, failed: 1, upToDate: 1 });
    expect(total).toBeCloseTo(100, 9);
    expect(m.statusText()).toBe('$(sync~spin) PFC 4/4');
  });

  test('log lines name the file and the reason', () => {
    expect(logLine({ type: 'failed', input: '/p/c.jpg', rel: 'c.jpg', error: 'job FAILED: corrupt', errorName: 'JobFailedError', jobId: 'j1' })).toBe('FAILED c.jpg: job FAILED: corrupt (job j1)');
    expect(logLine({ type: 'phase', input: '/p/c.jpg', rel: 'c.jpg', phase: 'uploading' })).toBeUndefined();
  });
});
