/**
 * The pre-signed storage: a second origin for uploads and results, refusing
 * what object storage refuses (a Content-Type it was not signed for, chunked
 * bodies, short bodies, bad or expired signatures) with S3-style XML, and the
 * lenient and same-origin switches that keep the older behaviour.
 */
import { readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorHandle } from '../src/index';
import { closeAll, COFFEE, emulator, H, json, runJob, xmlError } from './helpers';

let emu: EmulatorHandle;
beforeAll(async () => {
  emu = await emulator();
});
afterAll(closeAll);

type Ticket = { fileKey: string; uploadUrl: string };
const ticket = async (e: EmulatorHandle = emu): Promise<Ticket> => json<Ticket>(await fetch(`${e.web}/upload`, { headers: H }));

/** Whether `/pfc` sees an uploaded file for this key (the emulator's own record of the upload). */
async function stored(e: EmulatorHandle, fileKey: string): Promise<boolean> {
  const res = await fetch(`${e.web}/pfc?fileKey=${fileKey}&width=64`, { headers: H });
  const body = await json<{ error?: string }>(res);
  if (res.status === 200) return true;
  expect(body.error).toMatch(/has no file yet/);
  return false;
}

function chunked(total: number): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(c) {
      for (let at = 0; at < total; at += 500) c.enqueue(new Uint8Array(Math.min(500, total - at)));
      c.close();
    },
  });
}

describe('a second origin for storage', () => {
  it('upload addresses and results are on another port than the API, which does not serve them', async () => {
    const api = new URL(emu.web);
    const storage = new URL(emu.storage);
    expect(storage.port).not.toBe(api.port);
    expect(emu.urls.storage).toBe(emu.storage);
    const t = await ticket();
    expect(new URL(t.uploadUrl).origin).toBe(storage.origin);
    const r = await runJob(emu.web, COFFEE);
    expect(new URL(r.correctedFile!).origin).toBe(storage.origin);
    // The API's origin has no storage routes.
    expect((await fetch(`${api.origin}/v2/uploads/${t.fileKey}${new URL(t.uploadUrl).search}`, { method: 'PUT', body: COFFEE })).status).toBe(404);
    expect((await fetch(`${api.origin}/v2/results/${r.correctedFile!.split('/').pop()!}`)).status).toBe(404);
  });

  it('counts requests that carry the API key to storage; its CORS never allows the key', async () => {
    const before = emu.stats().storage;
    await runJob(emu.web, COFFEE);
    expect(emu.stats().storage.withApiKey).toBe(before.withApiKey);
    expect(emu.stats().storage.requests).toBeGreaterThan(before.requests);
    // An extra key header is harmless to storage (observed #2) but counted, so a test can require 0.
    const t = await ticket();
    expect((await fetch(t.uploadUrl, { method: 'PUT', body: COFFEE, headers: H })).status).toBe(200);
    expect(emu.stats().storage.withApiKey).toBe(before.withApiKey + 1);
    const preflight = await fetch(t.uploadUrl, { method: 'OPTIONS', headers: { Origin: 'null', 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'x-api-key' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('PUT');
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).not.toContain('x-api-key');
    expect(emu.stats().storage.withApiKey).toBe(before.withApiKey + 2);
  });
});

describe('strict pre-signed PUT (the default)', () => {
  it('a plain PUT with no Content-Type: 200, ETag, no body; the file is stored', async () => {
    const t = await ticket();
    const res = await fetch(t.uploadUrl, { method: 'PUT', body: COFFEE });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toMatch(/^"[0-9a-f]{64}"$/);
    expect(await res.text()).toBe('');
    expect(await stored(emu, t.fileKey)).toBe(true);
  });

  it('a Content-Type the address was not signed for is refused with 403 SignatureDoesNotMatch XML, nothing stored', async () => {
    for (const type of ['image/jpeg', 'application/octet-stream']) {
      const t = await ticket();
      const res = await fetch(t.uploadUrl, { method: 'PUT', body: COFFEE, headers: { 'Content-Type': type } });
      expect(res.status, type).toBe(403);
      const err = await xmlError(res);
      expect(err).toMatchObject({ code: 'SignatureDoesNotMatch', contentType: 'application/xml' });
      expect(err.message).toMatch(/Content-Type/);
      expect(await stored(emu, t.fileKey)).toBe(false);
    }
  });

  it('an address signed for a Content-Type refuses the PUT without it (empty included) and takes it with it', async () => {
    const typed = await emulator({ storage: { signedContentType: 'image/jpeg' } });
    const t = await ticket(typed);
    const none = await fetch(t.uploadUrl, { method: 'PUT', body: COFFEE });
    expect([none.status, (await xmlError(none)).code]).toEqual([403, 'SignatureDoesNotMatch']);
    const other = await fetch(t.uploadUrl, { method: 'PUT', body: COFFEE, headers: { 'Content-Type': 'image/png' } });
    expect(other.status).toBe(403);
    expect(await stored(typed, t.fileKey)).toBe(false);
    expect((await fetch(t.uploadUrl, { method: 'PUT', body: COFFEE, headers: { 'Content-Type': 'image/jpeg' } })).status).toBe(200);
    expect(await stored(typed, t.fileKey)).toBe(true);
  });

  it('a chunked body without Content-Length is refused with 501 NotImplemented XML, nothing stored', async () => {
    const t = await ticket();
    const res = await fetch(t.uploadUrl, { method: 'PUT', body: chunked(COFFEE.length), duplex: 'half' } as RequestInit);
    expect(res.status).toBe(501);
    const err = await xmlError(res);
    expect(err.code).toBe('NotImplemented');
    expect(err.message).toMatch(/Transfer-Encoding/);
    expect(await stored(emu, t.fileKey)).toBe(false);
  });

  it('a body shorter than its Content-Length is refused with 400 IncompleteBody, nothing kept', async () => {
    const t = await ticket();
    const u = new URL(t.uploadUrl);
    // Declares 5000 bytes, sends 1000 and closes its side (half-close), so the answer can still arrive.
    const answer = await new Promise<string>((resolve) => {
      const s = connect({ port: Number(u.port), host: u.hostname, allowHalfOpen: true }, () => {
        s.end(`PUT ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Length: 5000\r\n\r\n${'x'.repeat(1000)}`);
      });
      let out = '';
      s.on('data', (d: Buffer) => (out += d.toString()));
      s.on('close', () => resolve(out));
      s.on('error', () => resolve(out));
      s.setTimeout(5000, () => s.destroy());
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(answer).toContain('<Code>IncompleteBody</Code>');
    expect(await stored(emu, t.fileKey)).toBe(false);
    // The partial temp file is removed once the server has seen the stream end.
    const deadline = Date.now() + 10_000;
    while (readdirSync(join(emu.dataDir, 'tmp')).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(readdirSync(join(emu.dataDir, 'tmp'))).toEqual([]);
  });

  it('a body that stalls is cut off after the idle time with 400 RequestTimeout; nothing kept (was: open forever)', async () => {
    const idle = await emulator({ idleTimeoutMs: 300 });
    const t = await ticket(idle);
    const u = new URL(t.uploadUrl);
    // Declares 2 GiB, sends 1000 bytes, then nothing: the server must give up, not the client.
    const answer = await new Promise<string>((resolve) => {
      const s = connect({ port: Number(u.port), host: u.hostname }, () => {
        s.write(`PUT ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Length: ${2 ** 31}\r\n\r\n${'x'.repeat(1000)}`);
      });
      let out = '';
      s.on('data', (d: Buffer) => (out += d.toString()));
      s.on('close', () => resolve(`${out}[closed]`));
      s.on('error', () => resolve(`${out}[error]`));
      // Far beyond the 300 ms idle time: only a server that never cuts the body off reaches it.
      s.setTimeout(20_000, () => (s.destroy(), resolve(`${out}[client gave up]`)));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(answer).toContain('<Code>RequestTimeout</Code>');
    expect(answer).toMatch(/\[closed\]$/);
    expect(await stored(idle, t.fileKey)).toBe(false);
    const deadline = Date.now() + 10_000;
    while (readdirSync(join(idle.dataDir, 'tmp')).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(readdirSync(join(idle.dataDir, 'tmp'))).toEqual([]);
  });

  it('a tampered signature, another id, no signature or a moved expiry: 403 SignatureDoesNotMatch', async () => {
    const t = await ticket();
    const u = new URL(t.uploadUrl);
    const tampered = new URL(u);
    tampered.searchParams.set('signature', `${u.searchParams.get('signature')!.slice(0, -2)}AA`);
    const other = new URL(u);
    other.pathname = other.pathname.replace(t.fileKey, '00000000-0000-4000-8000-000000000000');
    const unsigned = new URL(u);
    unsigned.search = '';
    const later = new URL(u);
    later.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 3600));
    for (const bad of [tampered, other, unsigned, later]) {
      const res = await fetch(bad, { method: 'PUT', body: COFFEE });
      expect(res.status, bad.href).toBe(403);
      expect((await xmlError(res)).code).toBe('SignatureDoesNotMatch');
    }
  });

  it('above the upload limit: 413 EntityTooLarge XML, nothing kept', async () => {
    const small = await emulator({ limits: { maxUploadBytes: 1000 } });
    const t = await ticket(small);
    const res = await fetch(t.uploadUrl, { method: 'PUT', body: COFFEE });
    expect(res.status).toBe(413);
    expect(await xmlError(res)).toMatchObject({ code: 'EntityTooLarge' });
    expect(await stored(small, t.fileKey)).toBe(false);
  });

  it('the preset PUT follows the same rules', async () => {
    const create = await fetch(`${emu.web}/presets/`, { method: 'POST', headers: { ...H, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'strict-p', description: '' }) });
    const { uploadUrl } = await json<{ uploadUrl: string }>(create);
    expect(new URL(uploadUrl).origin).toBe(emu.storage);
    // A string body: fetch adds Content-Type text/plain, as a browser would — refused like any other.
    const typed = await fetch(uploadUrl, { method: 'PUT', body: 'preset' });
    expect([typed.status, (await xmlError(typed)).code]).toEqual([403, 'SignatureDoesNotMatch']);
    expect((await fetch(uploadUrl, { method: 'PUT', body: Buffer.from('preset') })).status).toBe(200);
  });
});

describe('switches', () => {
  it('lenient storage accepts a Content-Type, a key, a chunked body, and answers JSON as before', async () => {
    const lenient = await emulator({ storage: { lenient: true, port: 0 } });
    const t = await ticket(lenient);
    const a = await fetch(t.uploadUrl, { method: 'PUT', body: COFFEE, headers: { 'Content-Type': 'image/jpeg', ...H } });
    expect(a.status).toBe(200);
    expect(a.headers.get('etag')).toMatch(/^"[0-9a-f]{64}"$/);
    expect(await json(a)).toEqual({ fileKey: t.fileKey, size: COFFEE.length });
    const c = await fetch(t.uploadUrl, { method: 'PUT', body: chunked(COFFEE.length), duplex: 'half' } as RequestInit);
    expect(c.status).toBe(200);
    const bad = new URL(t.uploadUrl);
    bad.searchParams.set('signature', 'AAAA');
    const res = await fetch(bad, { method: 'PUT', body: COFFEE });
    expect(res.status).toBe(403);
    expect((await json(res)).error).toMatch(/not validly signed/);
  });

  it('lenient: a chunked body that grows over the limit still gets its 413 {error}', async () => {
    const small = await emulator({ limits: { maxUploadBytes: 1000 }, storage: { lenient: true } });
    const t = await ticket(small);
    const res = await fetch(t.uploadUrl, { method: 'PUT', body: chunked(5000), duplex: 'half' } as RequestInit);
    expect(res.status).toBe(413);
    expect((await json(res)).error).toMatch(/larger than the limit of 1000 bytes/);
  });

  it('sameOrigin serves uploads and results under the API /v2 again', async () => {
    const same = await emulator({ storage: { sameOrigin: true } });
    expect(same.storage).toBe(same.web);
    expect(same.urls.storage).toBeUndefined();
    const t = await ticket(same);
    expect(t.uploadUrl.startsWith(`${same.web}/uploads/`)).toBe(true);
    const r = await runJob(same.web, COFFEE);
    expect(r.correctedFile!.startsWith(`${same.web}/results/`)).toBe(true);
    expect((await fetch(r.correctedFile!)).status).toBe(200);
  });
});
