/** Shared helpers of the emulator tests: plain fetch, as a user's script would do it. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { JobRecord } from '@pfc/core';
import { startEmulator, type EmulatorHandle, type EmulatorOptions } from '../src/index';

export const KEY = 'test-key';
export const H = { 'X-API-KEY': KEY };

const samples = (p: string): string => fileURLToPath(new URL(`../../../samples/${p}`, import.meta.url));
/** 600x400 JPEG */
export const COFFEE = readFileSync(samples('objects/coffee.jpg'));
/** PNG (RGB) */
export const CHELSEA = readFileSync(samples('objects/chelsea.png'));
/** 512x512 JPEG portrait */
export const ASTRONAUT = readFileSync(samples('portraits/astronaut.jpg'));

/** A minimal ISO-BMFF (MP4) header followed by filler. */
export function fakeMp4(size = 4096): Buffer<ArrayBuffer> {
  const b = Buffer.alloc(size);
  b.writeUInt32BE(24, 0);
  b.write('ftypisom', 4, 'latin1');
  b.write('isomiso2mp41', 12, 'latin1');
  return b;
}

/** Emulators started by a test file; close them in afterEach/afterAll. */
/** A clock the test moves by hand (the emulator's `now`): expiry and holds without waiting. */
export function handClock(start = Date.now()): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

export const started: EmulatorHandle[] = [];

export async function emulator(options: EmulatorOptions = {}): Promise<EmulatorHandle> {
  const e = await startEmulator({ apiKeys: [KEY], ...options });
  started.push(e);
  return e;
}

export async function closeAll(): Promise<void> {
  await Promise.all(started.splice(0).map((e) => e.close()));
}

export async function json<T = Record<string, unknown>>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

/** Ticket + PUT; returns the fileKey. */
export async function upload(web: string, bytes: Uint8Array<ArrayBuffer>, fileType: 'image' | 'video' = 'image'): Promise<string> {
  const t = await json<{ fileKey: string; uploadUrl: string }>(await fetch(`${web}/upload?fileType=${fileType}`, { headers: H }));
  const put = await fetch(t.uploadUrl, { method: 'PUT', body: bytes });
  if (put.status !== 200) throw new Error(`PUT answered ${put.status}: ${await put.text()}`);
  return t.fileKey;
}

/** Starts a job; returns its status endpoint. Throws with the body when not 200. */
export async function startJob(web: string, query: Record<string, string | number | boolean>): Promise<string> {
  const q = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  const res = await fetch(`${web}/pfc?${q}`, { headers: H });
  const body = await json<{ statusEndpoint?: string; error?: string }>(res);
  if (res.status !== 200 || !body.statusEndpoint) throw new Error(`/pfc answered ${res.status}: ${JSON.stringify(body)}`);
  return body.statusEndpoint;
}

export async function status(statusEndpoint: string): Promise<JobRecord> {
  const u = new URL(statusEndpoint);
  u.searchParams.set('noRedirect', 'true');
  return json<JobRecord>(await getIdempotent(u));
}

/**
 * A GET, sent again when the connection was reset before any answer. Tests
 * that pass an engine run it on the emulator's own thread: a long step blocks
 * the event loop past the server's 5 s keep-alive, the server's timer then
 * fires before the already-arrived next request is read, and the kept-alive
 * socket is reset under it. Every real client retries that (as `@pfc/core`
 * does); a safe GET may be repeated.
 */
async function getIdempotent(url: URL | string): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetch(url);
    } catch (err) {
      const code = (err as { cause?: { code?: unknown } }).cause?.code;
      if (attempt >= 3 || (code !== 'ECONNRESET' && code !== 'UND_ERR_SOCKET')) throw err;
    }
  }
}

/** Polls (noRedirect) until the predicate holds; bounded by `timeoutMs`. */
export async function waitFor(statusEndpoint: string, until: (r: JobRecord) => boolean = isFinal, timeoutMs = 25_000): Promise<JobRecord> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await status(statusEndpoint);
    if (until(r)) return r;
    if (Date.now() > deadline) throw new Error(`job did not reach the expected state in ${timeoutMs} ms; last: ${JSON.stringify(r)}`);
    await new Promise((res) => setTimeout(res, 25));
  }
}

export const isFinal = (r: JobRecord): boolean => ['COMPLETED', 'FAILED', 'REJECTED'].includes(r.status);

/** Upload, start, wait: the final record. */
export async function runJob(web: string, bytes: Uint8Array<ArrayBuffer>, query: Record<string, string | number | boolean> = {}): Promise<JobRecord> {
  const fileKey = await upload(web, bytes);
  return waitFor(await startJob(web, { fileKey, ...query }));
}

/** Downloads a completed job's file. */
export async function download(r: JobRecord): Promise<{ bytes: Buffer; contentType: string | null }> {
  if (!r.correctedFile) throw new Error(`no correctedFile in ${JSON.stringify(r)}`);
  const res = await getIdempotent(r.correctedFile);
  if (res.status !== 200) throw new Error(`GET correctedFile answered ${res.status}`);
  return { bytes: Buffer.from(await res.arrayBuffer()), contentType: res.headers.get('content-type') };
}

/** The `Code` and `Message` of an object-storage XML error body (the strict storage's answers). */
export async function xmlError(res: Response): Promise<{ code: string; message: string; contentType: string | null }> {
  const text = await res.text();
  const tag = (name: string): string => new RegExp(`<${name}>([^<]*)</${name}>`).exec(text)?.[1] ?? '';
  if (!text.startsWith('<?xml')) throw new Error(`not an XML error body: ${text.slice(0, 200)}`);
  return { code: tag('Code'), message: tag('Message'), contentType: res.headers.get('content-type') };
}
