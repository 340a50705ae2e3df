/**
 * The three documented steps through the client against the emulator: real
 * uploads, every documented field of the job record with its type, every
 * state, 302 versus noRedirect, and real output files (format, dimensions).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_STATES, readAll, type JobRecord, type JobState, type WebApiClient } from '@pfc/core';
import { API_KEY, clientFor, greyPng, imageInfo, ISO_MS_RE, sample, startWebEmulator, UUID_RE, type Emulator } from './webapi-fixtures';

let emu: Emulator;
let client: WebApiClient;

beforeAll(async () => {
  // One worker and some processing time, so a second job is seen PENDING.
  emu = await startWebEmulator({ workers: 1, processingMs: 300 });
  client = clientFor(emu);
});
afterAll(() => emu?.close());

const USAGE_COUNTERS = [
  'imageCorrectionCount', 'imageResizeCount', 'classicResizeCount', 'videoCorrectionCount', 'removeBackgroundCount',
  'autoCropCount', 'glaresDetectorCount', 'removeGlaresTotalCount', 'removeGlaresCount',
] as const;

function expectDocumentedRecord(job: JobRecord): void {
  expect(job._id).toEqual(expect.any(String));
  expect(JOB_STATES).toContain(job.status);
  expect(job.statusText).toEqual(expect.any(String));
  expect(Number.isInteger(job.code)).toBe(true);
  expect(job.createdAt).toMatch(ISO_MS_RE);
  expect(job.updatedAt).toMatch(ISO_MS_RE);
  expect(Date.parse(job.updatedAt)).toBeGreaterThanOrEqual(Date.parse(job.createdAt));
  expect(job.usage.size).toEqual(expect.any(String));
  for (const k of USAGE_COUNTERS) expect(Number.isInteger(job.usage[k]), k).toBe(true);
  expect(job.usage.removeGlaresTotalCount).toBeGreaterThanOrEqual(job.usage.removeGlaresCount);
  expect(typeof job.aiserver).toBe('boolean');
  expect(typeof job.timeTaken).toBe('number');
}

describe('the documented flow', () => {
  it('upload → /pfc → poll → correctedFile gives a real image with every documented field', async () => {
    const ticket = await client.uploads.ticket('image');
    expect(ticket.fileKey).toMatch(UUID_RE);
    await client.uploads.put(ticket.uploadUrl, sample('outdoors/rocket.jpg'));
    const handle = await client.jobs.start({ fileKey: ticket.fileKey, long: 320, outputType: 'png' });
    const seen = new Set<JobState>();
    const job = await client.waitForJob(handle, { onStatus: (j) => seen.add(j.status) });

    expectDocumentedRecord(job);
    expect(job).toMatchObject({ _id: handle.jobId, status: 'COMPLETED', code: 0, originalDimensions: { width: 640, height: 427 } });
    expect(seen.has('PROCESSING')).toBe(true);
    expect(job.detectionData).toBeUndefined();
    const bytes = await client.jobs.downloadBytes(job);
    const out = imageInfo(bytes);
    expect(out).toMatchObject({ format: 'png', width: 320 });
    // 427 × 320/640 = 213.5: the document does not say how it rounds.
    expect(Math.abs(out.height - 213.5)).toBe(0.5);
  });

  it('correct() returns the corrected stream; outputType jpg and outputQuality change the bytes', async () => {
    const input = sample('objects/chelsea.png');
    const low = await client.correctBytes(input, { outputType: 'jpg', outputQuality: 40, cache: false });
    const high = await client.correctBytes(input, { outputType: 'jpg', outputQuality: 100, cache: false });
    expect(imageInfo(low.bytes)).toEqual({ format: 'jpeg', width: 451, height: 300 });
    expect(imageInfo(high.bytes).format).toBe('jpeg');
    expect(low.bytes.byteLength).toBeLessThan(high.bytes.byteLength);
    expect(low.contentType).toBe('image/jpeg');
    // outputType=original keeps PNG.
    const same = await client.correct(input, {});
    expect(imageInfo(await readAll(same.body)).format).toBe('png');
  });

  it('a streamed input (factory + size, sent with Content-Length, in 16 KB chunks) is corrected like bytes', async () => {
    const bytes = sample('portraits/grace_hopper.jpg');
    let opened = 0;
    const stream = () => {
      opened++;
      let at = 0;
      return new ReadableStream<Uint8Array>({
        pull(c) {
          if (at >= bytes.byteLength) return c.close();
          c.enqueue(bytes.subarray(at, (at += 16 * 1024)));
        },
      });
    };
    const res = await client.correctBytes(stream, { width: 256 }, { size: bytes.byteLength, contentType: 'image/jpeg' });
    expect(opened).toBe(1);
    expect(res.job?.originalDimensions).toEqual({ width: 512, height: 600 });
    expect(imageInfo(res.bytes)).toMatchObject({ format: 'jpeg', width: 256 });
  });

  it('width, height, short and scale size the output as documented (aspect ratio kept)', async () => {
    const key = await client.uploadFile(sample('objects/coffee.jpg')); // 600×400
    const cases = [
      [{ width: 300 }, { width: 300, height: 200 }],
      [{ height: 100 }, { width: 150, height: 100 }],
      [{ short: 200 }, { width: 300, height: 200 }],
      [{ scale: 50 }, { width: 300, height: 200 }],
    ] as const;
    for (const [params, expected] of cases) {
      const job = await client.waitForJob(await client.jobs.start({ fileKey: key, ...params }));
      const { width, height } = imageInfo(await client.jobs.downloadBytes(job));
      expect({ width, height }, JSON.stringify(params)).toEqual(expected);
    }
  });

  it('autocrop reports autoCrop and outputDimensions, counts autoCropCount, and crops the file', async () => {
    const res = await client.correctBytes(sample('portraits/astronaut.jpg'), { autocrop: true, cropARW: '1', cropARH: '1' });
    const job = res.job!;
    expect(job.usage.autoCropCount).toBe(1);
    for (const k of ['x', 'y', 'width', 'height'] as const) expect(Number.isInteger(job.autoCrop![k])).toBe(true);
    expect(job.outputDimensions).toEqual({ width: job.autoCrop!.width, height: job.autoCrop!.height });
    const info = imageInfo(res.bytes);
    expect({ width: info.width, height: info.height }).toEqual(job.outputDimensions);
  });

  it('includeDetectionData adds detectionData with its documented fields; removeGlares counts its total', async () => {
    const { job } = await client.correctBytes(sample('portraits/grace_hopper.jpg'), { includeDetectionData: true, removeGlares: true });
    const d = job!.detectionData!;
    expect(Number.isInteger(d.facesCount)).toBe(true);
    expect(Array.isArray(d.faces)).toBe(true);
    expect(d.faces).toHaveLength(d.facesCount);
    expect(Number.isInteger(d.scene)).toBe(true);
    for (const k of ['noise', 'redEye', 'message', 'status'] as const) expect(typeof d[k], k).toBe('string');
    expect(Array.isArray(d.warnings)).toBe(true);
    expect(job!.usage.removeGlaresTotalCount).toBe(1);
    expect(job!.usage.removeGlaresCount).toBeLessThanOrEqual(1);
  });

  it('a second job waits PENDING while the only worker is busy', async () => {
    const key = await client.uploadFile(sample('objects/coffee.jpg'));
    const first = await client.jobs.start({ fileKey: key, width: 100, cache: false });
    const second = await client.jobs.start({ fileKey: key, width: 101, cache: false });
    const states: JobState[] = [];
    await client.waitForJob(second, { onStatus: (j) => states.push(j.status) });
    expect(states[0]).toBe('PENDING');
    expect(states).toContain('COMPLETED');
    await client.waitForJob(first);
  });

  it('cache=true reuses the output of an identical request; cache=false recomputes', async () => {
    const key = await client.uploadFile(sample('objects/coffee.jpg'));
    const a = await client.waitForJob(await client.jobs.start({ fileKey: key, width: 222 }));
    const runs = emu.stats().jobs.pipelineRuns;
    const b = await client.waitForJob(await client.jobs.start({ fileKey: key, width: 222 }));
    expect(emu.stats().jobs.pipelineRuns).toBe(runs);
    expect(await client.jobs.downloadBytes(b)).toEqual(await client.jobs.downloadBytes(a));
    await client.waitForJob(await client.jobs.start({ fileKey: key, width: 222, cache: false }));
    expect(emu.stats().jobs.pipelineRuns).toBe(runs + 1);
  });
});

describe('GET /status/{id}: 302 versus noRedirect', () => {
  it('answers 200 JSON while running, 302 with Location when done, JSON with noRedirect=true, with or without the key', async () => {
    const handle = await client.jobs.start({ fileKey: await client.uploadFile(greyPng(64, 64)), cache: false });
    const running = await fetch(handle.statusEndpoint, { redirect: 'manual' });
    expect(running.status).toBe(200);
    expect(JOB_STATES).toContain(((await running.json()) as JobRecord).status);

    const job = await client.waitForJob(handle);
    const redirect = await fetch(handle.statusEndpoint, { redirect: 'manual', headers: { 'X-API-KEY': API_KEY } });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe(job.correctedFile);
    await redirect.body?.cancel();

    const url = new URL(handle.statusEndpoint);
    url.searchParams.set('noRedirect', 'true');
    const plain = await fetch(url, { redirect: 'manual' }); // no key: the job id is the secret
    expect(plain.status).toBe(200);
    expect(((await plain.json()) as JobRecord).correctedFile).toBe(job.correctedFile);

    // What public scripts do: follow the redirect to the file.
    const followed = await fetch(handle.statusEndpoint);
    expect(imageInfo(new Uint8Array(await followed.arrayBuffer()))).toMatchObject({ format: 'png', width: 64, height: 64 });
  });
});
