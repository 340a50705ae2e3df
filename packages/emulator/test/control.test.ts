/** The control routes: off unless asked for, keyed, no CORS, JSON only; job records show what the service received. */
import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, COFFEE, emulator, H, json, runJob } from './helpers';
import type { EmulatorJobRecord } from '../src/index';
import { createHash } from 'node:crypto';

afterEach(closeAll);

const control = (web: string, path: string): string => `${web.replace(/\/v2$/, '/_emulator')}/${path}`;

describe('control routes', () => {
  it('are not served unless the emulator is started with control: true', async () => {
    const emu = await emulator();
    for (const path of ['stats', 'faults', 'jobs']) expect((await fetch(control(emu.web, path), { headers: H })).status).toBe(404);
    const post = await fetch(control(emu.web, 'faults'), { method: 'POST', headers: { ...H, 'Content-Type': 'application/json' }, body: '{"routes":{"*":{"rate500":1}}}' });
    expect(post.status).toBe(404);
    expect((await fetch(`${emu.web}/upload`, { headers: H })).status).toBe(200);
  });

  it('need a configured API key, and any non-empty key when none is configured', async () => {
    const keyed = await emulator({ control: true });
    expect((await fetch(control(keyed.web, 'stats'))).status).toBe(401);
    expect((await fetch(control(keyed.web, 'stats'), { headers: { 'X-API-KEY': 'wrong' } })).status).toBe(401);
    expect((await fetch(control(keyed.web, 'stats'), { headers: H })).status).toBe(200);
    const open = await emulator({ control: true, apiKeys: [] });
    expect((await fetch(control(open.web, 'stats'))).status).toBe(200);
  });

  it('carry no CORS headers, so a page on another origin cannot call them', async () => {
    const emu = await emulator({ control: true });
    const preflight = await fetch(control(emu.web, 'faults'), {
      method: 'OPTIONS',
      headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    const get = await fetch(control(emu.web, 'stats'), { headers: { ...H, Origin: 'https://evil.example' } });
    expect(get.status).toBe(200);
    expect(get.headers.get('access-control-allow-origin')).toBeNull();
    // The API itself still answers cross-origin callers (Figma's iframe, UXP).
    const api = await fetch(`${emu.web}/upload`, { headers: { ...H, Origin: 'null' } });
    expect(api.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('refuse a text/plain body, the kind a page may send without a preflight', async () => {
    const emu = await emulator({ control: true });
    const res = await fetch(control(emu.web, 'faults'), { method: 'POST', headers: { ...H, 'Content-Type': 'text/plain' }, body: '{"routes":{"*":{"rate500":1}}}' });
    expect(res.status).toBe(415);
    expect((await json(res)).error).toMatch(/application\/json/);
    expect(await json(await fetch(control(emu.web, 'faults'), { headers: H }))).toEqual({});
  });
});

describe('GET /_emulator/jobs', () => {
  it('lists every job with the parameters the service received and the input it processed', async () => {
    const emu = await emulator({ control: true, engine: {} });
    await runJob(emu.web, COFFEE, { preset: 'Universal', outputType: 'png' });
    const { jobs } = await json<{ jobs: EmulatorJobRecord[] }>(await fetch(control(emu.web, 'jobs'), { headers: H }));
    expect(jobs).toHaveLength(1);
    const [job] = jobs;
    expect(job!.state).toBe('COMPLETED');
    expect(job!.requested).toMatchObject({ preset: 'Universal', outputType: 'png' });
    expect(job!.params).toMatchObject({ outputType: 'png' });
    expect(job!.inputSha256).toBe(createHash('sha256').update(COFFEE).digest('hex'));
    expect(job!.record._id).toBe(job!.jobId);
    expect(emu.jobs()).toEqual(jobs);
  });
});
