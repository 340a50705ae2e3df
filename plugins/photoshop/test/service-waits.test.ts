/**
 * The service makes a document wait (503 or 429 with `Retry-After`): the panel's progress says why and counts
 * the wait down, the phase comes back as the request is made again, and the result layer is added. Cancel
 * during such a wait ends the run at once and leaves the document as it was. Against the emulator, whose
 * injected `Retry-After` holds (a request sent before it has passed is refused again, counted as `earlyRetry`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RunProgress } from '../src/correct/run';
import { emulator, photoWith, press, RESULT } from './press';

afterEach(() => {
  emulator.handle().setFaults({});
});

/** What the progress line says of the document: the wait's text while there is one, else the phase. */
const said = (progress: RunProgress[]) => progress.map((p) => p.waiting ?? p.phase);

describe('the service makes the document wait', () => {
  it('the progress says why and counts down, the phase comes back, and the result layer is added', async () => {
    const { host, doc } = await photoWith();
    // The upload ticket: the service unavailable for 2 s; then a status poll refused for the request rate, 1 s.
    emulator.handle().setFaults({ routes: { upload: { rate503: 1, count: 1, retryAfterSeconds: 2 }, status: { rate429: 1, count: 1, retryAfterSeconds: 1 } } });
    const progress: RunProgress[] = [];
    const { outcome } = await press(host, doc, 'document', undefined, emulator.backend(), { onProgress: (p) => progress.push(p) });

    const lines = said(progress);
    const unavailable = lines.indexOf('Service unavailable — retrying in 2 s (attempt 2 of 5)');
    expect(lines.slice(unavailable - 1, unavailable + 3)).toEqual([
      'uploading', 'Service unavailable — retrying in 2 s (attempt 2 of 5)', 'Service unavailable — retrying in 1 s (attempt 2 of 5)', 'uploading',
    ]);
    // The refused poll (Retry-After 1 s plus the client's spread of up to 20 %) is said in the phase it interrupts.
    const busy = progress.filter((p) => p.waiting?.startsWith('Service busy'));
    expect(busy.map((p) => p.waiting)).toEqual(busy.length === 2 ? ['Service busy (rate limited) — retrying in 2 s', 'Service busy (rate limited) — retrying in 1 s'] : ['Service busy (rate limited) — retrying in 1 s']);
    expect(new Set(busy.map((p) => p.phase)).size).toBe(1);
    expect(['queued', 'processing']).toContain(busy[0]!.phase);
    expect(progress.at(-1)).toMatchObject({ phase: 'done' });
    expect(progress.at(-1)!.waiting).toBeUndefined();
    // Each wait was the service's: nothing was sent again before its Retry-After had passed.
    expect(emulator.handle().stats().faults).toMatchObject({ '503': 1, '429': 1, earlyRetry: 0 });
    expect(outcome).toMatchObject({ status: 'done' });
    expect(doc.layers[0]!.name).toBe(RESULT);
  }, 20_000);

  it('Cancel during a wait ends the run at once, the countdown stops, and the document is left as it was', async () => {
    const { host, doc } = await photoWith();
    emulator.handle().setFaults({ routes: { pfc: { rate429: 1, count: 1, retryAfterSeconds: 60 } } });
    const abort = new AbortController();
    const progress: RunProgress[] = [];
    // Timed from the Cancel: the reading and the upload before the wait take what the machine's load makes them.
    let cancelledAt: number | undefined;
    const { outcome } = await press(host, doc, 'document', undefined, emulator.backend(), {
      signal: abort.signal,
      onProgress: (p) => {
        progress.push(p);
        if (p.waiting) {
          cancelledAt ??= Date.now();
          abort.abort();
        }
      },
    });
    expect(Date.now() - cancelledAt!).toBeLessThan(5_000);
    expect(outcome).toMatchObject({ status: 'cancelled', message: 'cancelled: the document was left unchanged' });
    // Retry-After 60 s, plus the client's spread of up to 20 %.
    expect(progress.find((p) => p.waiting)?.waiting).toMatch(/^Service busy \(too many jobs at once\) — retrying in 1:[01]\d$/);
    const told = progress.length;
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(progress).toHaveLength(told);
    expect([doc.layers.length, doc.history.length]).toEqual([1, 1]);
  }, 20_000);
});
