/**
 * A streamed upload whose file changed after its size was taken: the PUT
 * declares that size as Content-Length, so a shorter body would leave the
 * server waiting for the rest (each attempt stalling until the inactivity
 * timeout, then retried), and a longer one would be cut. The client counts
 * the bytes and fails at once with InputChangedError, not retried — through
 * the global fetch and through @pfc/batch's node:http fetch.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputChangedError, type FileInput, type RetryInfo } from '@pfc/core';
import { createNodeFetch } from '@pfc/batch';
import { clientFor, sample, startWebEmulator, type Emulator } from './webapi-fixtures';

let emu: Emulator;
const JPEG = sample('objects/coffee.jpg');

beforeAll(async () => {
  emu = await startWebEmulator();
});
afterAll(() => emu?.close());

/** A factory streaming `bytes` in 16 KiB chunks, as a file read would. */
function streamOf(bytes: Uint8Array): FileInput {
  return () =>
    new ReadableStream<Uint8Array>({
      start(c) {
        for (let at = 0; at < bytes.length; at += 16_384) c.enqueue(bytes.slice(at, at + 16_384));
        c.close();
      },
    });
}

describe.each([
  ['global fetch', undefined],
  ['node:http fetch (@pfc/batch)', createNodeFetch()],
])('a file that changed during the upload (%s)', (_name, fetch) => {
  it.each([
    ['shrank', JPEG.byteLength + 5000, /had \d+ bytes when the upload began, only \d+ were read/],
    ['grew', JPEG.byteLength - 5000, /had \d+ bytes when the upload began, more than that were read/],
  ])('%s: InputChangedError at once, no retry, nothing stored', async (_what, declared, message) => {
    const retries: RetryInfo[] = [];
    // The inactivity timeout is the default 60 s: a stalled PUT would fail this test's 30 s limit.
    const client = clientFor(emu, { onRetry: (r) => retries.push(r), ...(fetch ? { fetch } : {}) });
    const putsBefore = emu.stats().requests['upload.put'] ?? 0;
    const t0 = Date.now();
    const err = await client.uploadFile(streamOf(JPEG), { fileType: 'image', contentType: 'image/jpeg', size: declared }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputChangedError);
    expect((err as InputChangedError).declaredBytes).toBe(declared);
    expect((err as Error).message).toMatch(message);
    expect(retries).toEqual([]);
    expect(Date.now() - t0).toBeLessThan(10_000);
    // At most the one attempt reached the server, and it was not stored as a complete upload.
    expect((emu.stats().requests['upload.put'] ?? 0) - putsBefore).toBeLessThanOrEqual(1);
  });

  it('the right size still uploads', async () => {
    const client = clientFor(emu, fetch ? { fetch } : {});
    const { job } = await client.correct(streamOf(JPEG), { width: 64 }, { fileType: 'image', contentType: 'image/jpeg', size: JPEG.byteLength });
    expect(job?.status).toBe('COMPLETED');
  });
});
