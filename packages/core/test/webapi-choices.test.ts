/**
 * Every choice the caller makes reaches the job the service starts, `false`
 * included: `preserveMetadata` and `cache` default to true on the service, so
 * a `false` lost on the way silently keeps the photo's metadata or hands back
 * a cached output. Read from the fake service's own job (the query it got).
 * The same choices against the emulator, checked in the output's bytes:
 * packages/emulator/test/user-choices.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { WebApiClient, type PfcParams } from '@pfc/core';
import { BASE, FakeApi, KEY } from './helpers/fake-api';
import { recordingSleep } from './helpers/fake-fetch';

const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 10, 20, 30, 40]);

describe('correct() sends every choice to the service', () => {
  it.each<[string, PfcParams]>([
    ['explicit false where the service defaults to true', { preserveMetadata: false, cache: false }],
    ['a full set of typed choices', { preset: 'School and Sports', outputType: 'jpg', outputQuality: 40, long: 800, removeGlares: true, removeBlemish: true, preserveMetadata: false }],
  ])('%s', async (_name, params) => {
    const api = new FakeApi();
    const client = new WebApiClient({ apiKey: KEY, baseURL: BASE, fetch: api.fetch, sleep: recordingSleep().sleep });
    await client.correctBytes(JPEG, params);
    const jobs = [...api.jobs.values()];
    expect(jobs).toHaveLength(1);
    const got = Object.fromEntries([...jobs[0]!.query].filter(([k]) => k !== 'fileKey'));
    expect(got).toEqual(Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)])));
  });
});
