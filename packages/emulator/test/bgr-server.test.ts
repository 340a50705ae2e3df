/**
 * The background-removal container emulation on the wire: plain fetch and curl.
 * (The typed client against it is in test/contract/bgr-*.test.ts.)
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { createBgrServer, type BgrServer, type BgrServerOptions } from '../src/bgr/server';
import { COFFEE } from './helpers';

const LICENCE = 'BGR-LIC-4d2c9e';
const servers: BgrServer[] = [];
async function start(opts: BgrServerOptions = {}): Promise<BgrServer> {
  const s = await createBgrServer({ licenseKey: LICENCE, ...opts });
  servers.push(s);
  return s;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function activate(s: BgrServer): Promise<void> {
  await fetch(`${s.url}/Authorize/${LICENCE}`);
}
async function submit(s: BgrServer, bytes: Uint8Array = COFFEE, query = '', fields: Record<string, string> = {}): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([bytes as Uint8Array<ArrayBuffer>], { type: 'image/jpeg' }), 'coffee.jpg');
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  return fetch(`${s.url}/SubmitImage${query}`, { method: 'POST', body: form });
}
async function body<T = Record<string, unknown>>(r: Response): Promise<T> {
  return (await r.json()) as T;
}
const run = promisify(execFile);

/** A red disc on a white backdrop: what the border heuristic must cut out exactly. */
async function disc(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="160"><rect width="200" height="160" fill="#ffffff"/><circle cx="100" cy="80" r="50" fill="#d02020"/></svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 95 }).toBuffer();
}

describe('BGR emulation: licence', () => {
  it('reports Unlicensed and refuses work (403) until Authorize; a wrong key stays Unlicensed; a missing key is 400', async () => {
    const s = await start();
    expect(await body(await fetch(`${s.url}/Status`))).toMatchObject({ status: 'Unlicensed', model_version: expect.any(String) });
    const refused = await submit(s);
    expect(refused.status).toBe(403);
    expect(await body(refused)).toMatchObject({ code: 'unlicensed', status: 'Unlicensed' });
    expect(await body(await fetch(`${s.url}/Authorize/wrong-key`))).toMatchObject({ status: 'Unlicensed' });
    const missing = await fetch(`${s.url}/Authorize/`);
    expect(missing.status).toBe(400);
    expect(await body(missing)).toMatchObject({ code: 'licenceKeyMissing' });
    const ok = await body(await fetch(`${s.url}/Authorize/${LICENCE}`));
    expect(ok).toMatchObject({ status: 'Licensed', 'licensed org': 'Emulated Studio', 'expiration date': expect.stringMatching(/^\d{4}-\d\d$/) });
    expect(ok).not.toHaveProperty('model_version');
    const status = await body(await fetch(`${s.url}/Status`));
    expect(status).toMatchObject({ status: 'Licensed', 'expiration date': expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) });
    expect((await submit(s)).status).toBe(200);
  });

  it('without a configured key any non-empty key activates', async () => {
    const s = await createBgrServer();
    servers.push(s);
    expect(await body(await fetch(`${s.url}/Authorize/anything`))).toMatchObject({ status: 'Licensed' });
  });
});

describe('BGR emulation: jobs', () => {
  it('submit → check → download → remove: a PNG with alpha of the input size, then files deleted', async () => {
    // Engine-less (`engine: {}`): the border heuristic's exact cut; the engine's mask is in bgr-engine.test.ts.
    const s = await start({ engine: {} });
    await activate(s);
    const sub = await body(await submit(s, await disc(), '?preprocessing=true&postprocessing=false', { mode: 'portrait', preprocessing_config: '{}' }));
    expect(sub).toMatchObject({ status: 'processing', mode: 'portrait', preprocessing_enabled: 'true', message: expect.any(String), process_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const id = sub.process_id as string;
    await s.idle();
    const check = await body(await fetch(`${s.url}/CheckImage/${id}`));
    expect(check).toMatchObject({ status: 'completed', original_name: 'coffee.jpg', mode: 'portrait', processing_time: expect.any(Number) });
    const dl = await fetch(`${s.url}/DownloadImage/${id}`);
    expect(dl.status).toBe(200);
    expect(dl.headers.get('content-type')).toBe('image/png');
    const png = Buffer.from(await dl.arrayBuffer());
    const meta = await sharp(png).metadata();
    expect(meta).toMatchObject({ format: 'png', width: 200, height: 160, channels: 4, hasAlpha: true });
    const alpha = await sharp(png).extractChannel(3).raw().toBuffer();
    const at = (x: number, y: number) => alpha[y * 200 + x]!;
    expect(at(5, 5)).toBe(0); // backdrop
    expect(at(195, 150)).toBe(0);
    expect(at(100, 80)).toBe(255); // disc centre
    expect(at(70, 80)).toBe(255);
    expect(await s.files()).toHaveLength(2);
    const removed = await body(await fetch(`${s.url}/RemoveImage/${id}`, { method: 'DELETE' }));
    expect(removed).toEqual({ status: 'deleted', process_id: id, files_deleted: 2, previous_status: 'completed' });
    expect(await s.files()).toEqual([]);
    expect((await fetch(`${s.url}/CheckImage/${id}`)).status).toBe(404);
  });

  it('a real photo: PNG with alpha at the input size (heuristic mask, not all opaque, not all clear)', async () => {
    const s = await start({ engine: {} });
    await activate(s);
    const id = (await body(await submit(s))).process_id as string;
    await s.idle();
    const png = Buffer.from(await (await fetch(`${s.url}/DownloadImage/${id}`)).arrayBuffer());
    expect(await sharp(png).metadata()).toMatchObject({ width: 600, height: 400, hasAlpha: true });
    const { channels } = await sharp(png).stats();
    expect(channels[3]!.min).toBe(0);
    expect(channels[3]!.max).toBe(255);
  });

  it('documented codes: 422 missing file, 404 invalid file, 400 bad or missing id, 404 unknown id, 500 when processing failed', async () => {
    const s = await start();
    await activate(s);
    const noFile = await fetch(`${s.url}/SubmitImage`, { method: 'POST', body: new FormData() });
    expect(noFile.status).toBe(422);
    expect(await body(noFile)).toMatchObject({ code: 'missingFile', detail: [{ loc: ['body', 'file'], msg: 'field required' }] });
    const badMode = await submit(s, COFFEE, '', { mode: 'pets' });
    expect([badMode.status, (await body(badMode)).code]).toEqual([422, 'invalidParameter']);
    const notImage = await submit(s, new TextEncoder().encode('hello, not an image'));
    expect([notImage.status, (await body(notImage)).code]).toEqual([404, 'invalidFile']);
    for (const path of ['/CheckImage/not-a-uuid', '/DownloadImage/../x', '/CheckImage/', '/DownloadImage']) {
      const r = await fetch(`${s.url}${path}`);
      expect(r.status, path).toBe(path === '/DownloadImage/../x' ? 404 : 400);
    }
    expect((await fetch(`${s.url}/RemoveImage/`, { method: 'DELETE' })).status).toBe(400);
    const unknown = '6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f';
    for (const [method, path] of [['GET', '/CheckImage/'], ['GET', '/DownloadImage/'], ['DELETE', '/RemoveImage/']]) {
      const r = await fetch(`${s.url}${path}${unknown}`, { method });
      expect([r.status, (await body(r)).code]).toEqual([404, 'notFound']);
    }
    const truncated = (await body(await submit(s, COFFEE.subarray(0, 3000)))).process_id as string;
    await s.idle();
    expect(await body(await fetch(`${s.url}/CheckImage/${truncated}`))).toMatchObject({ status: 'failed', error: expect.stringMatching(/processing failed/) });
    const failed = await fetch(`${s.url}/DownloadImage/${truncated}`);
    expect([failed.status, (await body(failed)).code]).toEqual([500, 'processingFailed']);
    expect(await body(await fetch(`${s.url}/RemoveImage/${truncated}`, { method: 'DELETE' }))).toMatchObject({ files_deleted: 1, previous_status: 'failed' });
  });

  it('an empty (0-byte) file part is 422 missingFile, like no file, and starts no job; the server keeps answering', async () => {
    const s = await start();
    await activate(s);
    const empty = await submit(s, new Uint8Array(0));
    expect(empty.status).toBe(422);
    expect(await body(empty)).toMatchObject({ code: 'missingFile', detail: [{ loc: ['body', 'file'], msg: 'file is empty' }] });
    // The fuzzer's case: a quoted boundary and a traversal file name, no content.
    const boundary = '----WebKitFormBoundary7MA4YWxkTrZu0gW';
    const raw = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="..%2f..%2f..%2fetc%2fpasswd"\r\nContent-Type: text/plain\r\n\r\n\r\n--${boundary}--\r\n`;
    const fuzzed = await fetch(`${s.url}/SubmitImage`, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary="${boundary}"` }, body: raw });
    expect([fuzzed.status, (await body(fuzzed)).code]).toEqual([422, 'missingFile']);
    expect(await s.files()).toEqual([]);
    const ok = await submit(s);
    expect(ok.status).toBe(200);
  });

  it('reports queued and processing, removes a job while processing, and fails a queued job when the licence is gone', async () => {
    const s = await start();
    await activate(s);
    s.hold();
    const a = (await body(await submit(s))).process_id as string;
    const b = (await body(await submit(s))).process_id as string;
    await expect.poll(async () => (await body(await fetch(`${s.url}/CheckImage/${a}`))).status).toBe('processing');
    expect((await body(await fetch(`${s.url}/CheckImage/${b}`))).status).toBe('queued');
    expect(await body(await fetch(`${s.url}/RemoveImage/${a}`, { method: 'DELETE' }))).toMatchObject({ previous_status: 'processing', files_deleted: 1 });
    s.deactivate();
    s.release();
    await s.idle();
    expect(await body(await fetch(`${s.url}/CheckImage/${b}`))).toMatchObject({ status: 'failed', error: expect.stringMatching(/Unlicensed/) });
    expect(await s.files()).toHaveLength(1); // b's input, until removed
  });
});

describe('BGR emulation: DownloadImage while processing (the document\'s 102)', () => {
  it('holds the request with interim 102s (curl shows them) and answers 200 PNG when the job completes', async () => {
    const s = await start({ processingHeartbeatMs: 100 });
    await activate(s);
    s.hold();
    const id = (await body(await submit(s))).process_id as string;
    const curl = run('curl', ['-s', '-i', '-o', '-', '--max-time', '60', `${s.url}/DownloadImage/${id}`], { encoding: 'latin1', maxBuffer: 50_000_000 });
    const fetched = fetch(`${s.url}/DownloadImage/${id}`);
    // Both requests are held (and have had their first 102) before the job may finish.
    await expect.poll(() => s.heldDownloads, { timeout: 20_000 }).toBe(2);
    s.release();
    const { stdout } = await curl;
    expect(stdout).toMatch(/^HTTP\/1\.1 102 Processing\r\n\r\n/);
    expect(stdout).toMatch(/HTTP\/1\.1 200 OK\r\n[\s\S]*content-type: image\/png/i);
    const res = await fetched;
    expect(res.status).toBe(200); // fetch never surfaces the interim 102
    expect(await sharp(Buffer.from(await res.arrayBuffer())).metadata()).toMatchObject({ format: 'png', hasAlpha: true });
  });

  it('answers 202 with Retry-After when the job has not settled within the hold time', async () => {
    const s = await start({ downloadHoldMs: 50 });
    await activate(s);
    s.hold();
    const id = (await body(await submit(s))).process_id as string;
    const r = await fetch(`${s.url}/DownloadImage/${id}`);
    expect(r.status).toBe(202);
    expect(r.headers.get('retry-after')).toBe('1');
    expect(await body(r)).toMatchObject({ status: expect.stringMatching(/queued|processing/), process_id: id });
    const { stdout } = await run('curl', ['-s', '-i', `${s.url}/DownloadImage/${id}`]);
    expect(stdout).toMatch(/HTTP\/1\.1 202 Accepted/);
    s.release();
  });

  it('sends no interim 102 to an HTTP/1.0 client', async () => {
    const s = await start({ downloadHoldMs: 50 });
    await activate(s);
    s.hold();
    const id = (await body(await submit(s))).process_id as string;
    const { stdout } = await run('curl', ['-s', '-i', '--http1.0', `${s.url}/DownloadImage/${id}`]);
    expect(stdout).not.toMatch(/102 Processing/);
    expect(stdout).toMatch(/^HTTP\/1\.[01] 202 /);
    s.release();
  });
});
