/**
 * Spec guards: things that expire. Pre-signed addresses expire by default (not
 * only when a test configures a lifetime), and no option keeps files longer
 * than web-api-v2.md's Limits allow ("at most 7 days"; uploads "cached for 7
 * days"). Clocks are injected: nothing waits.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../src/index';
import { closeAll, COFFEE, emulator, H, handClock, json, xmlError } from './helpers';

afterEach(closeAll);

const DAY_MIN = 1440;

const clock = () => handClock(Date.parse('2026-01-01T00:00:00.000Z'));

describe('pre-signed addresses expire with the default options', () => {
  it('a file upload address answers 403 Request has expired an hour after its ticket', async () => {
    const c = clock();
    const emu = await emulator({ now: c.now });
    const t = await json<{ uploadUrl: string }>(await fetch(`${emu.web}/upload`, { headers: H }));
    c.advance(3600_000 + 1000);
    const late = await fetch(t.uploadUrl, { method: 'PUT', body: COFFEE });
    expect(late.status).toBe(403);
    expect(await xmlError(late)).toMatchObject({ code: 'AccessDenied', message: 'Request has expired' });
  });

  it('a preset upload address expires the same way', async () => {
    const c = clock();
    const emu = await emulator({ now: c.now });
    const res = await fetch(`${emu.web}/presets/`, { method: 'POST', headers: { ...H, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'Late', description: '' }) });
    const { uploadUrl } = await json<{ uploadUrl: string }>(res);
    c.advance(3600_000 + 1000);
    const late = await fetch(uploadUrl, { method: 'PUT', body: new Uint8Array([1, 2, 3]) });
    expect(late.status).toBe(403);
    expect((await xmlError(late)).code).toBe('AccessDenied');
  });
});

describe('retention options stay within the documented limits (web-api-v2.md, Limits)', () => {
  it('results kept longer than 7 days are refused at start; 7 days is allowed', async () => {
    await expect(startEmulator({ retentionMinutes: 7 * DAY_MIN + 1 })).rejects.toThrow(/retentionMinutes must be at most 10080/);
    const ok = await emulator({ retentionMinutes: 7 * DAY_MIN });
    expect(ok.web).toMatch(/\/v2$/);
  });

  it('uploads (fileKey, bgFileKey reuse) kept longer than 7 days are refused at start', async () => {
    await expect(startEmulator({ uploadRetentionMinutes: 8 * DAY_MIN })).rejects.toThrow(/uploadRetentionMinutes must be at most 10080/);
  });
});
