import { afterEach, describe, expect, it, vi } from 'vitest';
import { json } from './helpers/fake-fetch';
import { DEFAULT_POLL, pollDelays, WebApiClient } from '@pfc/core';
import { JobDurations, PollSchedule } from '../src/webapi/poll-schedule';
import { BASE, FakeApi, KEY } from './helpers/fake-api';
import { recordingSleep } from './helpers/fake-fetch';

const FILE_KEY = '1b4e28ba-2fa1-11d2-883f-0016d3cca427';
const { adaptive: _a, ...SPACING } = DEFAULT_POLL;

/**
 * The delays a schedule asks for, answering `statuses` one per request. The
 * clock is frozen: the schedule takes the larger of the wall clock and its
 * own waits, so a millisecond passing on a loaded machine would shift them.
 */
function run(expectedMs: number | undefined, statuses: string[], phase = 0): number[] {
  vi.useFakeTimers({ toFake: ['Date'] });
  try {
    const s = new PollSchedule(SPACING, expectedMs, phase);
    return statuses.map((st) => {
      const d = s.next();
      s.observe(st);
      return d;
    });
  } finally {
    vi.useRealTimers();
  }
}

describe('PollSchedule', () => {
  it('is the documented blind policy without history', () => {
    expect(run(undefined, Array<string>(12).fill('PROCESSING'))).toEqual(pollDelays({}, 12));
  });

  it('polls sparsely until the expected time, then densely from 2 % of it', () => {
    // Expected 2 s: sparse 150, 300, 600, then the rest up to 2 s; dense 40, 60, 90 …
    expect(run(2000, Array<string>(7).fill('PROCESSING'))).toEqual([150, 300, 600, 950, 40, 60, 90]);
  });

  it('caps the dense steps at maxDelayMs when the job runs far longer than expected', () => {
    const delays = run(1000, Array<string>(20).fill('PROCESSING'));
    expect(Math.max(...delays)).toBe(2000);
    expect(delays.at(-1)).toBe(2000);
  });

  it('polls blind while the job is queued and counts the expected end from the last PENDING answer', () => {
    // Expected 1 s. Sparse 150 → PENDING at 150; blind 150 → PENDING at 300; blind 225 →
    // PROCESSING at 525; dense from 300 + 1000 = 1300: sparse 300 → 825, then 475 → 1300.
    const delays = run(1000, ['PENDING', 'PENDING', 'PROCESSING', 'PROCESSING', 'PROCESSING']);
    expect(delays).toEqual([150, 150, 225, 300, 475]);
  });

  it('polls densely from 2 % of the expected time, at least 5 ms, for very short jobs', () => {
    expect(run(100, ['PROCESSING', 'PROCESSING', 'PROCESSING'])).toEqual([100, 5, 8]);
    expect(run(300, ['PROCESSING', 'PROCESSING', 'PROCESSING', 'PROCESSING'])).toEqual([150, 150, 6, 9]);
  });

  it('scales the blind delays by factor^-phase, so jobs waiting side by side poll between each other', () => {
    const plain = pollDelays({}, 6);
    const shifted = run(undefined, Array<string>(6).fill('PROCESSING'), 0.5);
    expect(shifted).toEqual(plain.map((d) => Math.round(d / Math.sqrt(1.5))));
    // Never more requests than the plain schedule over the same time.
    const sum = (a: number[]) => a.reduce((x, y) => x + y, 0);
    expect(sum(shifted)).toBeLessThan(sum(plain));
    expect(sum(shifted) + plain[5]! * 1.5).toBeGreaterThan(sum(plain));
  });

  it('re-plans around a duration learned during a blind wait: polls at once when past the expected end', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const t0 = Date.now();
      const s = new PollSchedule(SPACING, undefined);
      expect(s.next()).toBe(150);
      s.observe('PROCESSING');
      expect(s.next()).toBe(225); // blind: the next request at 375 ms …
      vi.setSystemTime(t0 + 320); // … but another job completes at 320 ms, taking 300 ms
      s.learn(300, true);
      expect(s.blind).toBe(false);
      expect(s.next()).toBe(0);
      s.observe('PROCESSING');
      expect(s.next()).toBe(6);

      // Learned before the expected end: sparse until it, then the request at the end.
      const u = new PollSchedule(SPACING, undefined);
      expect(u.next()).toBe(150);
      u.observe('PROCESSING');
      u.next();
      vi.setSystemTime(t0 + 320 + 200);
      u.learn(1000, true);
      expect(u.next()).toBe(150);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('JobDurations', () => {
  it('expects the shortest of the last 8 completed jobs and ignores unusable values', () => {
    const d = new JobDurations();
    expect(d.expectedMs).toBeUndefined();
    for (const v of [undefined, 0, -1, Number.NaN, '2']) d.record(v);
    expect(d.expectedMs).toBeUndefined();
    d.record(3);
    d.record(1.5);
    d.record(2);
    expect(d.expectedMs).toBe(1500);
    for (let i = 0; i < 8; i++) d.record(4);
    expect(d.expectedMs).toBe(4000);
  });
});

describe('waitForJob side by side, blind', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('wakes the other blind waits when the first job completes, so a batch\'s first wave is noticed together', async () => {
    vi.useFakeTimers();
    const api = new FakeApi();
    const t0 = Date.now();
    // Every job takes 300 ms from t0 (they all start at once, as a batch's first wave does).
    api.http.on('GET', /^https:\/\/api\.test\/v2\/status\/([^?]+)/, (_req, _url, m) => {
      const done = Date.now() - t0 >= 300;
      return json({ _id: m[1], status: done ? 'COMPLETED' : 'PROCESSING', timeTaken: 0.3, ...(done ? { correctedFile: `https://files.test/out/${m[1]}` } : {}) });
    });
    const client = new WebApiClient({ apiKey: KEY, baseURL: BASE, fetch: api.fetch });
    const jobs = await Promise.all([1, 2, 3, 4].map(() => client.jobs.start({ fileKey: FILE_KEY })));
    const noticed = jobs.map((j) => client.waitForJob(j).then(() => Date.now() - t0));
    await vi.advanceTimersByTimeAsync(2000);
    const at = await Promise.all(noticed);
    // Alone, blind, each would notice at its own next request: 375, 555, 340 and 504 ms
    // (phases 0, 0.618, 0.236, 0.854; measured with the wake disabled). Side by side the
    // third one's request at 340 ms finds its job done and wakes the others, which ask at
    // once (the timer's next tick): all within 15 % of 300 ms.
    expect(at).toEqual([341, 341, 340, 341]);
    const polls = api.http.callsTo('GET', /\/status\//).length;
    expect(polls).toBeLessThanOrEqual(4 * 3);
  });
});

describe('waitForJob with history', () => {
  // A frozen clock, as in `run`: the sleeps are recorded, not waited, so only they may count.
  afterEach(() => {
    vi.useRealTimers();
  });
  function setup() {
    vi.useFakeTimers({ toFake: ['Date'] });
    const api = new FakeApi();
    api.script = ['PROCESSING', 'PROCESSING', 'PROCESSING', 'COMPLETED'];
    const s = recordingSleep();
    return { api, s, client: new WebApiClient({ apiKey: KEY, baseURL: BASE, fetch: api.fetch, sleep: s.sleep }) };
  }

  it('polls the first job blind and the next around the learned timeTaken (0.5 s in the fake)', async () => {
    const { client, s } = setup();
    await client.waitForJob(await client.jobs.start({ fileKey: FILE_KEY }));
    expect(s.delays).toEqual(pollDelays({}, 4));
    s.delays.length = 0;
    await client.waitForJob(await client.jobs.start({ fileKey: FILE_KEY }));
    // Dense from 500 ms: 150, 300, then up to 500; steps of 10 ms (2 % of 500), ×1.5.
    expect(s.delays).toEqual([150, 300, 50, 10]);
  });

  it('stays blind with poll.adaptive false', async () => {
    const { client, s } = setup();
    await client.waitForJob(await client.jobs.start({ fileKey: FILE_KEY }));
    s.delays.length = 0;
    await client.waitForJob(await client.jobs.start({ fileKey: FILE_KEY }), { poll: { adaptive: false } });
    expect(s.delays).toEqual(pollDelays({}, 4));
  });
});
