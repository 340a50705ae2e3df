/**
 * The colour-correction container emulation on the wire: plain fetch, raw
 * sockets and curl, as users' scripts talk to it. (The typed client against it
 * is in test/contract/container-*.test.ts.)
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { greyProfile, jpegWithIcc } from '../../../test/support/icc';
import { containerOptionsFromEnv, logLevelOf } from '../src/container/options';
import { createContainerServer, type ContainerServer } from '../src/container/server';
import { CHELSEA, COFFEE } from './helpers';

const servers: ContainerServer[] = [];
const dirs: string[] = [];
async function start(opts: Parameters<typeof createContainerServer>[0] = {}): Promise<ContainerServer> {
  const s = await createContainerServer(opts);
  servers.push(s);
  return s;
}
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'pfc-ct-'));
  dirs.push(d);
  return d;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function put(s: ContainerServer, body: Uint8Array, type = 'image/jpeg'): Promise<Response> {
  return fetch(`${s.url}/pfc`, { method: 'PUT', headers: { 'content-type': type }, body: body as Uint8Array<ArrayBuffer> });
}
async function key(s: ContainerServer, body: Uint8Array = COFFEE, type = 'image/jpeg'): Promise<string> {
  return ((await (await put(s, body, type)).json()) as { imageKey: string }).imageKey;
}

/** Raw request line on a socket (no URL normalisation by a client); resolves with the whole answer. */
function raw(s: ContainerServer, payload: string): Promise<string> {
  const { hostname, port } = new URL(s.url);
  return new Promise((resolve, reject) => {
    const sock = connect(Number(port), hostname, () => sock.write(payload));
    let got = '';
    sock.on('data', (d) => (got += d.toString('latin1')));
    sock.on('end', () => resolve(got));
    sock.on('error', reject);
    sock.setTimeout(5000, () => sock.end());
  });
}

describe('container emulation: endpoints and error bodies', () => {
  it('PUT /pfc, GET /pfc/{key} with resize and type, GET /output: real image at the requested size', async () => {
    // Engine-less (`engine: {}`): scene -1 (not detected); the engine's scene is in container-engine.test.ts.
    const s = await start({ engine: {} });
    const k = await key(s);
    const r = await fetch(`${s.url}/pfc/${k}?width=300&outputType=png`);
    expect(r.status).toBe(200);
    const body = (await r.json()) as { corrected_url: string; scene: number };
    expect(body.scene).toBe(-1);
    expect(body.corrected_url).toMatch(/^http:\/\/localhost\/output\/[0-9a-f-]{36}\.png$/);
    const out = await fetch(`${s.url}${new URL(body.corrected_url).pathname}`);
    expect(out.headers.get('content-type')).toBe('image/png');
    const meta = await sharp(Buffer.from(await out.arrayBuffer())).metadata();
    expect(meta).toMatchObject({ format: 'png', width: 300, height: 200 });
  });

  it.each([
    ['missing Content-Type', () => ({ method: 'PUT', path: '/pfc', type: undefined }), 400, 'noContentTypeRequestMessage'],
    ['unsupported Content-Type', () => ({ method: 'PUT', path: '/pfc', type: 'image/webp' }), 400, 'noContentTypeRequestMessage'],
    ['no image key', () => ({ method: 'GET', path: '/pfc/' }), 400, 'noIdMessage'],
    ['unknown image key', () => ({ method: 'GET', path: '/pfc/0c8e5a10-0000-4000-8000-000000000000' }), 400, 'unknownImageIdMessage'],
    ['encoded separator', () => ({ method: 'GET', path: '/pfc/..%2F..%2Fetc%2Fpasswd' }), 400, 'invalidIdMessage'],
    ['encoded backslash', () => ({ method: 'GET', path: '/pfc/..%5Csecret' }), 400, 'invalidIdMessage'],
    ['double-encoded separator', () => ({ method: 'GET', path: '/pfc/a%252Fb' }), 400, 'invalidIdMessage'],
    ['NUL byte', () => ({ method: 'GET', path: '/pfc/a%00b.jpg' }), 400, 'invalidIdMessage'],
  ])('%s', async (_name, req, status, id) => {
    const s = await start();
    const { method, path, type } = req() as { method: string; path: string; type?: string };
    const r = await fetch(`${s.url}${path}`, { method, ...(method === 'PUT' ? { body: COFFEE, headers: type ? { 'content-type': type } : {} } : {}) });
    expect(r.status).toBe(status);
    const body = (await r.json()) as { error: string; message: string };
    expect(body.error).toBe(id);
    expect(body.message).toBeTypeOf('string');
  });

  it('parameter errors: unknownOutputTypeMessage, unknownPresetMessage, invalidParameterMessage naming the range', async () => {
    const s = await start();
    const k = await key(s);
    const ask = async (q: string) => {
      const r = await fetch(`${s.url}/pfc/${k}?${q}`);
      return { status: r.status, ...((await r.json()) as { error: string; message: string }) };
    };
    expect(await ask('outputType=gif')).toMatchObject({ status: 400, error: 'unknownOutputTypeMessage', message: expect.stringMatching(/outputType must be one of JPEG, PNG, jpg/) });
    expect(await ask('preset=Studio')).toMatchObject({ status: 400, error: 'unknownPresetMessage' });
    expect(await ask('outputColorSpace=Wide.icc')).toMatchObject({ status: 400, error: 'unknownPresetMessage' });
    expect(await ask('outputQuality=20')).toMatchObject({ status: 400, error: 'invalidParameterMessage', message: expect.stringMatching(/outputQuality must be an integer from 40 to 100/) });
    expect(await ask('width=10&width=20')).toMatchObject({ status: 400, error: 'invalidParameterMessage' });
    expect((await ask('outputType=JPG&outputQuality=40')).status).toBe(200);
  });

  it('processingPFCErrorMessage (503) for an image it cannot process: truncated, or under 32 pixels', async () => {
    const s = await start();
    const truncated = await key(s, COFFEE.subarray(0, 2000));
    const tiny = await key(s, await sharp({ create: { width: 40, height: 20, channels: 3, background: '#808080' } }).jpeg().toBuffer());
    for (const k of [truncated, tiny]) {
      const r = await fetch(`${s.url}/pfc/${k}`);
      expect(r.status).toBe(503);
      expect(((await r.json()) as { error: string }).error).toBe('processingPFCErrorMessage');
    }
  });

  it('holds images to its own limits, not the Web API\'s: a short side of 32 is taken, and past 21:1 only beautify is off', async () => {
    const beautify: (boolean | undefined)[] = [];
    const s = await start({
      engine: {
        look: async (image, ctx) => {
          beautify.push(ctx.beautify);
          // A visible correction: every pixel a little brighter.
          return { ...image, data: Buffer.from(image.data.map((v) => Math.min(255, v + 20))) };
        },
      },
    });
    const grey = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: '#606060' } }).png().toBuffer();
    const corrected = async (width: number, height: number) => {
      const r = await fetch(`${s.url}/pfc/${await key(s, await grey(width, height), 'image/png')}`);
      expect(r.status, `${width}x${height}`).toBe(200);
      const out = await fetch(`${s.url}${new URL(((await r.json()) as { corrected_url: string }).corrected_url).pathname}`);
      const { data, info } = await sharp(Buffer.from(await out.arrayBuffer())).raw().toBuffer({ resolveWithObject: true });
      return { width: info.width, height: info.height, first: data[0] };
    };

    // "images with a short side under 32 pixels are rejected": 32 itself is taken.
    expect(await corrected(32, 400)).toEqual({ width: 32, height: 400, first: 0x60 + 20 });
    // "Beautify corrections: disabled above aspect ratio 21:1": corrected, without them.
    expect(await corrected(2200, 100)).toEqual({ width: 2200, height: 100, first: 0x60 + 20 });
    expect(beautify).toEqual([undefined, false]);
  });

  it('takes a greyscale JPEG (its documents name only JPEG and PNG) and keeps its own grey profile, its tones as they were (sharp writes grey as RGB and drops it)', async () => {
    const s = await start({ engine: {} });
    const grey = await sharp(COFFEE).resize(120, 80).toColourspace('b-w').jpeg({ quality: 95 }).toBuffer();
    const tagged = jpegWithIcc(grey, greyProfile('Gray Gamma 2.2 (test)', 2.2));
    const source = await sharp(tagged).metadata();
    expect([source.space, source.channels, source.icc !== undefined]).toEqual(['b-w', 1, true]);
    // Quality 100: what is left of the difference is the tones, not the recompression.
    const r = await fetch(`${s.url}/pfc/${await key(s, tagged)}?outputQuality=100`);
    expect(r.status).toBe(200);
    const out = Buffer.from(await (await fetch(`${s.url}${new URL(((await r.json()) as { corrected_url: string }).corrected_url).pathname}`)).arrayBuffer());
    const meta = await sharp(out).metadata();
    expect([meta.space, meta.icc?.equals(source.icc!)]).toEqual(['b-w', true]);
    // As a colour-managed viewer shows them, the output's tones are the input's.
    const shown = (b: Buffer) => sharp(b).toColourspace('srgb').raw().toBuffer();
    const [a, b] = [await shown(tagged), await shown(out)];
    let diff = 0;
    for (let i = 0; i < a.length; i++) diff += Math.abs(a[i]! - b[i]!);
    expect(diff / a.length).toBeLessThan(0.5);
  });

  it('raw path-traversal requests never leave the folders', async () => {
    const s = await start();
    for (const target of ['/pfc/../../etc/passwd', '/pfc/%2e%2e/%2e%2e/etc/passwd', '/output/../input/x', '/pfc//etc/passwd', '/output/%2Fetc%2Fpasswd']) {
      const answer = await raw(s, `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expect(answer, target).toMatch(/^HTTP\/1\.1 (400|404) /);
      expect(answer).not.toMatch(/root:/);
    }
  });

  it('a symlink in /input pointing outside is refused (invalidIdMessage)', async () => {
    const base = tempDir();
    const input = join(base, 'in');
    mkdirSync(input);
    writeFileSync(join(base, 'secret.jpg'), COFFEE);
    const { symlinkSync } = await import('node:fs');
    symlinkSync(join(base, 'secret.jpg'), join(input, 'link.jpg'));
    const s = await start({ inputDir: input, outputDir: join(base, 'out'), presetsDir: join(base, 'presets') });
    const r = await fetch(`${s.url}/pfc/link.jpg`);
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: string }).error).toBe('invalidIdMessage');
  });

  it('503 ids for folders it cannot write, and injected disk/close failures; nothing is left behind', async () => {
    const base = tempDir();
    const s = await start({ dataDir: base });
    for (const id of ['temporaryFileCreationMessage', 'temporaryFileWritingMessage'] as const) {
      s.injectFault(id);
      const r = await put(s, COFFEE);
      expect(r.status).toBe(503);
      expect(((await r.json()) as { error: string }).error).toBe(id);
    }
    const k = await key(s);
    for (const id of ['temporaryOutputFileMessage', 'temporaryCloseOutputFileMessage'] as const) {
      s.injectFault(id);
      const r = await fetch(`${s.url}/pfc/${k}`);
      expect(r.status).toBe(503);
      expect(((await r.json()) as { error: string }).error).toBe(id);
    }
    expect(readdirSync(s.folders.input)).toEqual([k]);
    expect(readdirSync(s.folders.output)).toEqual([]);
    // A real condition: the output folder replaced by a file.
    rmSync(s.folders.output, { recursive: true });
    writeFileSync(s.folders.output, 'not a folder');
    const r = await fetch(`${s.url}/pfc/${k}`);
    expect(((await r.json()) as { error: string }).error).toBe('temporaryOutputFileMessage');
  });

  it('bodyRequestMessage when the body cannot be read; the partial upload is removed', async () => {
    const s = await start();
    const answer = await new Promise<string>((resolve, reject) => {
      const { hostname, port } = new URL(s.url);
      const sock = connect(Number(port), hostname, () => {
        sock.write(`PUT /pfc HTTP/1.1\r\nHost: x\r\nContent-Type: image/jpeg\r\nContent-Length: 100000\r\n\r\n`);
        sock.write(COFFEE.subarray(0, 1000));
        sock.end(); // half-close: no more body will come
      });
      let got = '';
      sock.on('data', (d) => (got += d.toString('latin1')));
      sock.on('close', () => resolve(got));
      sock.on('error', reject);
    });
    // Node's HTTP parser sees the early end first and answers a plain 400 (or nothing); the handler's
    // bodyRequestMessage answer can only reach a client whose connection is still open.
    expect(answer === '' || /^HTTP\/1\.1 (400|503) /.test(answer)).toBe(true);
    await expect.poll(() => readdirSync(s.folders.input), { timeout: 10_000 }).toEqual([]);
  });

  it('unlicensed: the output is byte-identical to the input', async () => {
    const s = await start({ licensed: false });
    const k = await key(s);
    const body = (await (await fetch(`${s.url}/pfc/${k}`)).json()) as { corrected_url: string };
    const out = Buffer.from(await (await fetch(`${s.url}${new URL(body.corrected_url).pathname}`)).arrayBuffer());
    expect(out.equals(COFFEE)).toBe(true);
  });

  it('preset, outputColorSpace=srgb and an ICC profile from /presets; PNG input keeps its format', async () => {
    const base = tempDir();
    const presets = join(base, 'presets');
    mkdirSync(presets);
    writeFileSync(join(presets, 'Studio.preset'), 'preset bytes');
    const s = await start({ dataDir: base, presetsDir: presets });
    const k = await key(s, CHELSEA, 'image/png');
    const r = (await (await fetch(`${s.url}/pfc/${k}?preset=Studio&outputColorSpace=srgb&long=200`)).json()) as { corrected_url: string };
    const out = await sharp(Buffer.from(await (await fetch(`${s.url}${new URL(r.corrected_url).pathname}`)).arrayBuffer())).metadata();
    expect(out).toMatchObject({ format: 'png', width: 200, height: 133, space: 'srgb', hasProfile: true });
  });
});

describe('container emulation: retention, logs, environment', () => {
  it('deletes uploads and outputs older than the TTL on the sweep, logging cleanUpFileMessage for what it cannot delete', async () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const lines: string[] = [];
    const s = await start({ cacheTtlMinutes: 1, now: () => now, log: (l) => lines.push(l) });
    const k = await key(s);
    const out = (await (await fetch(`${s.url}/pfc/${k}`)).json()) as { corrected_url: string };
    const name = new URL(out.corrected_url).pathname.split('/').pop()!;
    now += 30_000;
    expect(await s.sweep()).toBe(0);
    // An output replaced by a folder cannot be deleted: logged, kept for the next sweep.
    rmSync(join(s.folders.output, name));
    mkdirSync(join(s.folders.output, name));
    writeFileSync(join(s.folders.output, name, 'x'), 'x');
    now += 60_000;
    expect(await s.sweep()).toBe(1);
    expect(readdirSync(s.folders.input)).toEqual([]);
    expect(((await (await fetch(`${s.url}/pfc/${k}`)).json()) as { error: string }).error).toBe('unknownImageIdMessage');
    const cleanup = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.id === 'cleanUpFileMessage');
    expect(cleanup).toMatchObject({ level: 'info', message: 'cleanUpFileMessage' });
  });

  it('writes JSON log lines at PFC_LOG_LEVEL; unknown levels fall back to info', async () => {
    expect(logLevelOf('DEBUG')).toBe('debug');
    expect(logLevelOf('verbose')).toBe('info');
    const lines: string[] = [];
    const s = await start({ logLevel: 'Warning', log: (l) => lines.push(l) });
    await key(s);
    await fetch(`${s.url}/pfc/nope.jpg`);
    const parsed = lines.map((l) => JSON.parse(l) as { level: string; id?: string });
    expect(parsed.map((l) => l.level)).toEqual(['warning']);
    expect(parsed[0]!.id).toBe('unknownImageIdMessage');
  });

  it('reads the documented PFC_* variables, refusing bad values by name', () => {
    expect(
      containerOptionsFromEnv({
        PFC_SITE_URL: 'http://studio:8081/',
        PFC_IMG_CACHE_TTL: '5',
        PFC_PRESERVE_INPUT_FILENAME: 'true',
        PFC_SKIP_MODE: 'None',
        PFC_SKIP_EXIF_SOFTWARE: 'Photoshop, GIMP',
        PFC_LOG_LEVEL: 'debug',
        PFC_AVX: 'off',
      }),
    ).toEqual({ siteUrl: 'http://studio:8081', cacheTtlMinutes: 5, preserveInputFileName: true, skipMode: 'none', skipExifSoftware: ['Photoshop', 'GIMP'], logLevel: 'debug' });
    expect(() => containerOptionsFromEnv({ PFC_IMG_CACHE_TTL: 'soon' })).toThrow(/PFC_IMG_CACHE_TTL must be a number of minutes/);
    expect(() => containerOptionsFromEnv({ PFC_SITE_URL: 'ftp://x' })).toThrow(/PFC_SITE_URL must be an http\(s\) URL/);
  });

  it('GET /version is the health check; curl sees the same answers as fetch', async () => {
    const s = await start();
    const v = (await (await fetch(`${s.url}/version`)).json()) as Record<string, unknown>;
    expect(v).toMatchObject({ container_version: '11.0.1', sdk_version: expect.any(String), features: expect.arrayContaining(['presets']) });
    const { stdout } = await promisify(execFile)('curl', ['-s', '-i', '-X', 'PUT', '--data-binary', 'hello', '-H', 'Content-Type: text/plain', `${s.url}/pfc`]);
    expect(stdout).toMatch(/^HTTP\/1\.1 400 /);
    expect(stdout).toMatch(/"error":"noContentTypeRequestMessage"/);
  });
});
