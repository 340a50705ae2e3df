/**
 * Spec guards for the two self-hosted containers: rules of
 * colour-correction-container.md and background-removal-container.md that no
 * other test held the emulation to (each test failed with the emulation
 * loosened the way its name says). Plain fetch over HTTP.
 */
import { get } from 'node:http';
import sharp from 'sharp';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createBgrServer, type BgrServer } from '../src/bgr/server';
import { createContainerServer, type ContainerServer } from '../src/container/server';
import { COFFEE, json } from './helpers';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function container(): Promise<ContainerServer> {
  const s = await createContainerServer({ engine: {} });
  open.push(s);
  return s;
}

async function bgr(options: Parameters<typeof createBgrServer>[0] = {}): Promise<BgrServer> {
  const s = await createBgrServer({ engine: {}, ...options });
  open.push(s);
  return s;
}

describe('colour container PUT /pfc: "Content-Type: image/jpeg or image/png (required)"; anything else is 400', () => {
  it.each([['webp'], ['gif'], ['tiff']] as const)('a %s image sent under its own, correct image/* type → 400 noContentTypeRequestMessage; no key', async (format) => {
    const s = await container();
    const bytes = await sharp(COFFEE).toFormat(format).toBuffer();
    const res = await fetch(`${s.url}/pfc`, { method: 'PUT', headers: { 'content-type': `image/${format}` }, body: new Uint8Array(bytes) });
    expect(res.status).toBe(400);
    const body = await json<{ error: string; imageKey?: string }>(res);
    expect(body.error).toBe('noContentTypeRequestMessage');
    expect(body.imageKey).toBeUndefined();
  });
});

describe('colour container: "images with a short side under 32 pixels are rejected"', () => {
  const png = (w: number, h: number): Promise<Buffer> => sharp({ create: { width: w, height: h, channels: 3, background: '#808080' } }).png().toBuffer();

  it('31 pixels is refused naming the limit; 32 is corrected', async () => {
    const s = await container();
    const key = async (bytes: Buffer): Promise<string> =>
      (await json<{ imageKey: string }>(await fetch(`${s.url}/pfc`, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: new Uint8Array(bytes) }))).imageKey;
    const small = await fetch(`${s.url}/pfc/${await key(await png(31, 200))}`);
    expect(small.status).not.toBe(200);
    expect((await json<{ message: string }>(small)).message).toMatch(/short side under 32 pixels are rejected/);
    expect((await fetch(`${s.url}/pfc/${await key(await png(32, 200))}`)).status).toBe(200);
  });
});

describe('BGR GET /Authorize/{license_key}: "400 licence key missing"', () => {
  it('a blank key (only spaces) is missing: 400, and the container stays Unlicensed', async () => {
    const s = await bgr();
    const res = await fetch(`${s.url}/Authorize/%20%20`);
    expect(res.status).toBe(400);
    expect(await json(await fetch(`${s.url}/Status`))).toMatchObject({ status: 'Unlicensed' });
  });
});

describe('BGR GET /DownloadImage/{process_id}: "102 still processing"', () => {
  it('a held download gets its 102 at once, not only at the first heartbeat', async () => {
    // The heartbeat is far beyond the hold: any 102 seen is the one sent on arrival.
    const s = await bgr({ downloadHoldMs: 300, processingHeartbeatMs: 600_000 });
    await fetch(`${s.url}/Authorize/any-licence`);
    s.hold();
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(COFFEE)], { type: 'image/jpeg' }), 'coffee.jpg');
    const { process_id: id } = await json<{ process_id: string }>(await fetch(`${s.url}/SubmitImage`, { method: 'POST', body: form }));
    const codes = await new Promise<number[]>((resolve, reject) => {
      const seen: number[] = [];
      get(`${s.url}/DownloadImage/${id}`, (res) => {
        seen.push(res.statusCode ?? 0);
        res.resume();
        res.on('end', () => resolve(seen));
      })
        .on('information', (info) => seen.push(info.statusCode))
        .on('error', reject);
    });
    s.release();
    expect(codes).toEqual([102, 202]);
  });
});

describe('colour container retention: deleted once older than PFC_IMG_CACHE_TTL (default 60), "checks every 10 minutes"', () => {
  it('with the defaults, an upload past 60 minutes is gone after the next 10-minute check', async () => {
    // Only the sweep's interval is faked (and the clock injected): nothing waits ten minutes.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      let t = Date.now();
      const s = await createContainerServer({ engine: {}, now: () => t });
      open.push(s);
      const put = await fetch(`${s.url}/pfc`, { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: new Uint8Array(COFFEE) });
      const { imageKey } = await json<{ imageKey: string }>(put);
      t += 60 * 60_000 + 1000;
      await vi.advanceTimersByTimeAsync(10 * 60_000);
      let answer = 0;
      for (let i = 0; i < 100 && answer !== 400; i++) {
        answer = (await fetch(`${s.url}/pfc/${imageKey}`)).status;
        if (answer !== 400) await new Promise((r) => setTimeout(r, 20));
      }
      expect(answer).toBe(400);
    } finally {
      vi.useRealTimers();
    }
  });
});
