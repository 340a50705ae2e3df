/**
 * Shared set-up of the Web API contract tests: an emulator on an ephemeral
 * port, a client for it, the sample photos, and a reader of image headers so
 * tests check real output formats and dimensions.
 */
import { readFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { WebApiClient, type ClientOptions, type RetryInfo } from '@pfc/core';
import { startEmulator, type EmulatorOptions } from '@pfc/emulator';

export const API_KEY = 'contract-key-5e1f0c2b9a';
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const ISO_MS_RE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

export type Emulator = Awaited<ReturnType<typeof startEmulator>>;

/**
 * Retry waits a {@link recordingClient} skips, ms: the emulator's clock runs
 * this far ahead, so the retry it sends at once arrives as late as the
 * `Retry-After` asked (the emulator answers an early retry the same fault again).
 */
let skippedMs = 0;

export function startWebEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  return startEmulator({ webPort: 0, apiKeys: [API_KEY], now: () => Date.now() + skippedMs, ...options });
}

/** A client for the emulator: fast polling (not a timing assertion, just shorter tests). */
export function clientFor(emu: Emulator, extra: Partial<ClientOptions> = {}): WebApiClient {
  return new WebApiClient({ apiKey: API_KEY, baseURL: emu.web, poll: { initialDelayMs: 20, factor: 1.5, maxDelayMs: 250 }, ...extra });
}

/** A client whose retry waits are recorded instead of slept. */
export function recordingClient(emu: Emulator, extra: Partial<ClientOptions> = {}): { client: WebApiClient; waits: number[]; retries: RetryInfo[] } {
  const waits: number[] = [];
  const retries: RetryInfo[] = [];
  const client = clientFor(emu, {
    onRetry: (r) => retries.push(r),
    // Retry waits are recorded and skipped; poll waits stay real but short.
    sleep: (ms, signal) => {
      if (retries.length > waits.length) {
        waits.push(ms);
        skippedMs += ms;
        return Promise.resolve();
      }
      return new Promise((resolve, reject) => {
        const t = setTimeout(resolve, ms);
        signal?.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)), { once: true });
      });
    },
    ...extra,
  });
  return { client, waits, retries };
}

const SAMPLES = new URL('../../samples/', import.meta.url);

/** A sample photo's bytes (`portraits/astronaut.jpg`, `objects/chelsea.png`, …). */
export function sample(path: string): Uint8Array {
  return new Uint8Array(readFileSync(new URL(path, SAMPLES)));
}

/** Format and size from the file header (PNG IHDR, JPEG SOFn). */
export function imageInfo(bytes: Uint8Array): { format: 'png' | 'jpeg'; width: number; height: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes[0] === 0x89 && bytes[1] === 0x50) return { format: 'png', width: view.getUint32(16), height: view.getUint32(20) };
  if (bytes[0] === 0xff && bytes[1] === 0xd8) {
    let at = 2;
    while (at + 9 < bytes.length) {
      if (bytes[at] !== 0xff) throw new Error(`bad JPEG marker at ${at}`);
      const marker = bytes[at + 1]!;
      const length = view.getUint16(at + 2);
      // SOF0–SOF15 except DHT (C4), JPG (C8) and DAC (CC).
      if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
        return { format: 'jpeg', height: view.getUint16(at + 5), width: view.getUint16(at + 7) };
      }
      at += 2 + length;
    }
    throw new Error('JPEG without a frame header');
  }
  throw new Error(`not a PNG or JPEG (starts ${[...bytes.subarray(0, 4)].join(',')})`);
}

/** A solid grey PNG of the given size, for limit cases (e.g. smaller than 32×32). */
export function greyPng(width: number, height: number): Uint8Array {
  const row = Buffer.alloc(1 + width * 3, 0x80);
  row[0] = 0;
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  const chunk = (type: string, data: Buffer) => {
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    out.write(type, 4, 'latin1');
    data.copy(out, 8);
    out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
  return new Uint8Array(png);
}

function crc32(buf: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

/** `GET /pfc` with raw query values (bypassing the client's validation), as a script would send it. */
export async function rawStart(emu: Emulator, params: Record<string, unknown>): Promise<{ status: number; body: unknown }> {
  const url = new URL(`${emu.web}/pfc`);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, String(v));
  const res = await fetch(url, { headers: { 'X-API-KEY': API_KEY } });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body };
}
