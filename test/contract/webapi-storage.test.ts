/**
 * The core client against the emulator's strict pre-signed storage on its own
 * origin, through the global fetch and through @pfc/batch's node:http fetch:
 * every input kind uploads (no Content-Type, a length), the API key never
 * reaches the storage origin, and the storage itself refuses a foreign
 * Content-Type — so the strictness these tests rely on cannot silently vanish.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APIError } from '@pfc/core';
import { createNodeFetch } from '@pfc/batch';
import { API_KEY, clientFor, imageInfo, sample, startWebEmulator, type Emulator } from './webapi-fixtures';

let emu: Emulator;
const JPEG = new Uint8Array(sample('objects/coffee.jpg'));
const PNG = new Uint8Array(sample('objects/chelsea.png'));

beforeAll(async () => {
  emu = await startWebEmulator();
});
afterAll(() => emu?.close());

function streamOf(bytes: Uint8Array): () => ReadableStream<Uint8Array> {
  return () =>
    new ReadableStream<Uint8Array>({
      start(c) {
        for (let at = 0; at < bytes.length; at += 16_384) c.enqueue(bytes.slice(at, at + 16_384));
        c.close();
      },
    });
}

describe('the emulator storage is strict and on its own origin', () => {
  it('refuses a PUT with a Content-Type the address was not signed for (403, S3 XML), and takes the plain PUT', async () => {
    const ticket = (await (await fetch(`${emu.web}/upload`, { headers: { 'X-API-KEY': API_KEY } })).json()) as { uploadUrl: string };
    expect(new URL(ticket.uploadUrl).origin).not.toBe(new URL(emu.web).origin);
    const refused = await fetch(ticket.uploadUrl, { method: 'PUT', body: JPEG, headers: { 'Content-Type': 'image/jpeg' } });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toBe('application/xml');
    expect(await refused.text()).toContain('<Code>SignatureDoesNotMatch</Code>');
    const chunked = await fetch(ticket.uploadUrl, { method: 'PUT', body: streamOf(JPEG)(), duplex: 'half' } as RequestInit);
    expect(chunked.status).toBe(501);
    const plain = await fetch(ticket.uploadUrl, { method: 'PUT', body: JPEG });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('etag')).toBeTruthy();
  });
});

describe.each([
  ['global fetch', undefined],
  ['node:http fetch (@pfc/batch)', createNodeFetch()],
])('core client against strict storage (%s)', (_name, fetchImpl) => {
  const client = () => clientFor(emu, fetchImpl ? { fetch: fetchImpl } : {});

  it.each([
    ['bytes', () => JPEG, {}],
    ['a typed Blob (fetch would add its type)', () => new Blob([JPEG], { type: 'image/jpeg' }), {}],
    ['a stream with its size and a type hint', () => streamOf(JPEG), { size: JPEG.byteLength, contentType: 'image/jpeg' }],
  ] as const)('uploads %s and corrects it; the key never reaches storage', async (_what, input, hints) => {
    const before = emu.stats().storage;
    const { job, bytes } = await client().correctBytes(input(), { width: 96 }, { fileType: 'image', ...hints });
    expect(job?.status).toBe('COMPLETED');
    expect(imageInfo(bytes).width).toBe(96);
    const after = emu.stats().storage;
    // Upload and download both went to the storage origin, none with the key.
    expect(after.requests - before.requests).toBeGreaterThanOrEqual(2);
    expect(after.withApiKey).toBe(0);
  });

  it('a PNG preset file and a background image upload through the same strict storage', async () => {
    const c = client();
    const name = `strict-${Math.random().toString(36).slice(2, 8)}`;
    await c.presets.create({ name, description: '', file: new TextEncoder().encode('<preset/>') });
    const bgFileKey = await c.uploadFile(new Blob([PNG], { type: 'image/png' }));
    const { job } = await c.correctBytes(JPEG, { preset: name, removeBackground: true, bgFileKey, width: 80 });
    expect(job?.status).toBe('COMPLETED');
    expect(emu.stats().storage.withApiKey).toBe(0);
  });

  it('a stream without its size goes chunked and storage refuses it with 501, named in the error', async () => {
    const err = await client()
      .uploadFile(streamOf(JPEG), { fileType: 'image' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIError);
    expect((err as APIError).status).toBe(501);
    expect((err as Error).message).toMatch(/NotImplemented|Transfer-Encoding/);
  });
});
