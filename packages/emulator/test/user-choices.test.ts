/**
 * What the user chose, seen where the user sees it: the corrected file's bytes
 * and the service's own job record, not the request the client meant to send.
 *
 * - Choices the user turns OFF (`preserveMetadata: false`, `cache: false`) go
 *   through the real core client: a client that drops a `false` on the way
 *   (the service's default is `true` for both) would hand back a file still
 *   carrying the photo's EXIF, or a cached result.
 * - The background-removal input limit: a removal of a file at or over it ends
 *   REJECTED naming the limit, with no file; the same file corrects without it.
 */
import { WebApiClient } from '@pfc/core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeAll, COFFEE, emulator, KEY, runJob } from './helpers';

afterAll(closeAll);

describe('choices the user turns off reach the service through the core client', () => {
  let tagged: Buffer<ArrayBuffer>;
  beforeAll(async () => {
    tagged = (await sharp(COFFEE)
      .resize(120, 80)
      .withMetadata({ exif: { IFD0: { Copyright: 'Private Owner' } } })
      .jpeg()
      .toBuffer()) as Buffer<ArrayBuffer>;
    expect(tagged.includes(Buffer.from('Private Owner'))).toBe(true);
  });

  const client = (web: string) => new WebApiClient({ apiKey: KEY, baseURL: web, poll: { initialDelayMs: 20, factor: 1.5, maxDelayMs: 200 } });

  it('preserveMetadata: false gives a file without the photo\'s EXIF, and the job record says false', async () => {
    const emu = await emulator({ engine: {} });
    const kept = await client(emu.web).correctBytes(tagged, {});
    expect(Buffer.from(kept.bytes).includes(Buffer.from('Private Owner'))).toBe(true); // the default keeps it

    const stripped = await client(emu.web).correctBytes(tagged, { preserveMetadata: false });
    expect(stripped.job?.status).toBe('COMPLETED');
    expect((await sharp(stripped.bytes).metadata()).exif).toBeUndefined();
    expect(Buffer.from(stripped.bytes).includes(Buffer.from('Private Owner'))).toBe(false);
    const record = emu.jobs().find((j) => j.jobId === stripped.job?._id);
    expect(record?.requested.preserveMetadata).toBe(false);
  });

  it('cache: false makes the service correct the file again instead of handing back its earlier output', async () => {
    const emu = await emulator({ engine: {} });
    await client(emu.web).correctBytes(tagged, { width: 100 });
    const again = await client(emu.web).correctBytes(tagged, { width: 100, cache: false });
    expect(again.job?.status).toBe('COMPLETED');
    expect(emu.stats().jobs).toMatchObject({ pipelineRuns: 2, cacheHits: 0 });
    expect(emu.jobs().find((j) => j.jobId === again.job?._id)?.requested.cache).toBe(false);
  });
});

describe('background removal input limit', () => {
  it('a file at the limit ends REJECTED naming it, with no corrected file; below the limit, or without removal, it is corrected', async () => {
    const atLimit = await emulator({ limits: { maxBackgroundInputBytes: COFFEE.length } });
    const refused = await runJob(atLimit.web, COFFEE, { removeBackground: true });
    expect(refused.status).toBe('REJECTED');
    expect(refused.statusText).toMatch(/^background removal needs an input below .*; the file has /);
    expect(refused.code).toBe(413);
    expect(refused.correctedFile).toBeUndefined();
    expect(refused.usage.removeBackgroundCount).toBe(0);
    // The limit is background removal's alone.
    expect((await runJob(atLimit.web, COFFEE, {})).status).toBe('COMPLETED');

    const belowLimit = await emulator({ limits: { maxBackgroundInputBytes: COFFEE.length + 1 } });
    const removed = await runJob(belowLimit.web, COFFEE, { removeBackground: true });
    expect(removed.status, removed.statusText).toBe('COMPLETED');
    expect(removed.usage.removeBackgroundCount).toBe(1);
  });
});
