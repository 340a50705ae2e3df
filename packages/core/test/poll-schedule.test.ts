import { afterEach, describe, expect, it, vi } from 'vitest';
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
function run(expectedMs: number | undefined, statuses: string[]): number[] {
  vi.useFakeTimers({ toFake: ['Date'] });
  try {
    const s = new PollSchedule(SPACING, expectedMs);
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

  it('polls sparsely until the expected time, then densely from 5 % of it', () => {
    // Expected 2 s: sparse 150, 300, 600, then the rest up to 2 s; dense 100, 150, 225 …
    expect(run(2000, Array<string>(7).fill('PROCESSING'))).toEqual([150, 300, 600, 950, 100, 150, 225]);
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

  it('has a floor of 20 ms on dense steps for very short jobs', () => {
    expect(run(100, ['PROCESSING', 'PROCESSING', 'PROCESSING'])).toEqual([100, 20, 30]);
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
    // Dense from 500 ms: 150, 300, then up to 500; steps of 25 ms (5 % of 500), ×1.5.
    expect(s.delays).toEqual([150, 300, 50, 25]);
  });

  it('stays blind with poll.adaptive false', async () => {
    const { client, s } = setup();
    await client.waitForJob(await client.jobs.start({ fileKey: FILE_KEY }));
    s.delays.length = 0;
    await client.waitForJob(await client.jobs.start({ fileKey: FILE_KEY }), { poll: { adaptive: false } });
    expect(s.delays).toEqual(pollDelays({}, 4));
  });
});
