/** The pure helpers both threads share: image headers, size planning, settings. */
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { describe, expect, it, vi } from 'vitest';
import { fitWithin, planResize } from '../src/shared/fit';
import { figmaAccepts, readImageHeader } from '../src/shared/image-header';
import { readCrop, readOriginals, recordCrop, recordOriginal } from '../src/main/fills';
import { imageSwap } from '../src/main/framing';
import { cropRegionOf, WHOLE_IMAGE } from '../src/shared/crop';
import { checkURL, maskKey, normaliseSettings } from '../src/shared/settings';
import { blockedText, classifyBlock } from '../src/ui/network';
import { uiContentSecurityPolicy } from './e2e/csp';
import { makeImage } from './helpers';
import { sha1Hex } from './sim/sha1';

describe('readImageHeader', () => {
  it('reads format and size of PNG, JPEG (baseline and progressive), GIF and WebP made by sharp', async () => {
    expect(readImageHeader(await makeImage(321, 123, 'png'))).toEqual({ format: 'png', width: 321, height: 123 });
    expect(readImageHeader(await makeImage(640, 427, 'jpeg'))).toEqual({ format: 'jpeg', width: 640, height: 427 });
    const progressive = new Uint8Array(await sharp({ create: { width: 99, height: 77, channels: 3, background: '#123456' } }).withExif({ IFD0: { Copyright: 'x' } }).jpeg({ progressive: true }).toBuffer());
    expect(readImageHeader(progressive)).toEqual({ format: 'jpeg', width: 99, height: 77 });
    expect(readImageHeader(await makeImage(40, 30, 'gif'))).toEqual({ format: 'gif', width: 40, height: 30 });
    expect(readImageHeader(await makeImage(40, 30, 'webp')).format).toBe('webp');
    expect(readImageHeader(new Uint8Array([1, 2, 3]))).toEqual({ format: 'unknown' });
  });

  it('accepts for Figma only PNG/JPEG/GIF up to 4096 px a side', () => {
    expect(figmaAccepts({ format: 'png', width: 4096, height: 4096 })).toBe(true);
    expect(figmaAccepts({ format: 'jpeg', width: 4097, height: 10 })).toBe(false);
    expect(figmaAccepts({ format: 'webp', width: 10, height: 10 })).toBe(false);
    expect(figmaAccepts({ format: 'png' })).toBe(false);
  });
});

describe('planResize (Figma 4096 px limit)', () => {
  const input = { width: 3000, height: 2000 };
  it('keeps the size, or a long edge that fits, unchanged', () => {
    expect(planResize({ kind: 'none' }, input)).toEqual({ request: {}, expected: input, notes: [] });
    expect(planResize({ kind: 'long', px: 1500 }, input)).toEqual({ request: { long: 1500 }, expected: { width: 1500, height: 1000 }, notes: [] });
    expect(planResize({ kind: 'scale', percent: 50 }, input)).toEqual({ request: { scale: 50 }, expected: { width: 1500, height: 1000 }, notes: [] });
  });
  it('turns a long edge or scale beyond 4096 px into a 4096 px long edge and says so', () => {
    const long = planResize({ kind: 'long', px: 8000 }, input);
    expect(long.request).toEqual({ long: 4096 });
    expect(long.expected).toEqual({ width: 4096, height: 2731 });
    expect(long.notes[0]).toMatch(/8000 px.*4096/);
    const scale = planResize({ kind: 'scale', percent: 200 }, input);
    expect(scale.request).toEqual({ long: 4096 });
    expect(scale.notes[0]).toContain('6000×4000');
  });
  it('fitWithin shrinks only what is too large', () => {
    expect(fitWithin({ width: 5000, height: 1000 })).toEqual({ width: 4096, height: 819 });
    expect(fitWithin({ width: 100, height: 50 })).toEqual({ width: 100, height: 50 });
  });
});

describe('settings helpers', () => {
  it('masks keys without revealing short ones', () => {
    expect(maskKey('abcdefghijklmnop1234')).toBe('••••1234');
    expect(maskKey('short-key')).toBe('••••');
  });
  it('reads stored settings leniently and checks addresses by name', () => {
    expect(normaliseSettings({ backend: 'nope', emulatorURL: ' http://127.0.0.1:9/v2 ' })).toMatchObject({ backend: 'hosted', emulatorURL: 'http://127.0.0.1:9/v2' });
    expect(checkURL('Emulator URL', 'ftp://x', true)).toMatch(/^Emulator URL must be an http/);
    expect(checkURL('Container URL', '', true)).toMatch(/required/);
    expect(checkURL('Container URL', 'http://localhost:8080', true)).toBeUndefined();
  });
  it('refuses a plain http:// address on another computer (the https page blocks it as mixed content); this computer and https are fine', async () => {
    for (const ok of ['http://localhost:8080', 'http://127.0.0.1:8081/v2', 'http://127.1.2.3', 'http://[::1]:9000', 'http://pfc.localhost:8080', 'https://192.168.1.20:8443', 'https://pfc.example.com/v2']) {
      expect(checkURL('Container URL', ok, true), ok).toBeUndefined();
    }
    const lan = checkURL('Container URL', 'http://192.168.1.20:8080', true);
    expect(lan).toMatch(/^Container URL: plain http:\/\/192\.168\.1\.20:8080 cannot be reached from Figma: .*mixed content/);
    expect(lan).toContain('ssh -L 8080:localhost:8080 192.168.1.20');
    expect(checkURL('Emulator URL', 'http://build-server.local/v2', true)).toMatch(/^Emulator URL: plain http:\/\/build-server\.local cannot/);
    // A stored address from before is said so when a run meets it, without a request (the browser sends none).
    const probe = vi.fn(() => Promise.reject(new TypeError('Failed to fetch')));
    expect(await classifyBlock(new URL('http://192.168.1.20:8080/pfc'), probe)).toBe('mixed');
    expect(probe).not.toHaveBeenCalled();
    expect(await classifyBlock(new URL('http://127.0.0.1:9/pfc'), probe)).toBe('unreachable');
    expect(blockedText('mixed', '192.168.1.20:8080', 'http://192.168.1.20:8080')).toMatch(/^Could not reach 192\.168\.1\.20:8080: plain http/);
  });
});

describe('simulator SHA-1', () => {
  it('matches node:crypto for empty, short, block-boundary and image inputs', async () => {
    for (const data of [new Uint8Array(0), new TextEncoder().encode('abc'), new Uint8Array(55), new Uint8Array(64).fill(7), await makeImage(50, 50)]) {
      expect(sha1Hex(data)).toBe(createHash('sha1').update(data).digest('hex'));
    }
  });
});

describe('image swaps and crop regions', () => {
  it('takes a resize for the same shape, up to the rounding of a side, and a reported crop only when the result has its shape', () => {
    expect(imageSwap({ width: 640, height: 427 }, { width: 1200, height: 801 }, undefined).region).toBe(WHOLE_IMAGE);
    expect(imageSwap({ width: 640, height: 427 }, { width: 1200, height: 700 }, undefined).region).toBeUndefined();
    const crop = { x: 0.25, y: 0, width: 0.75, height: 1 };
    expect(imageSwap({ width: 400, height: 300 }, { width: 150, height: 150 }, crop).region).toBe(crop);
    expect(imageSwap({ width: 400, height: 300 }, { width: 400, height: 300 }, crop).region).toBe(WHOLE_IMAGE);
  });

  it('reads the crop of a Web API job as fractions of the original, and none when it was only detected', () => {
    const job = { originalDimensions: { width: 400, height: 300 }, autoCrop: { x: 100, y: 0, width: 300, height: 150 } };
    expect(cropRegionOf({}, job)).toEqual({ x: 0.25, y: 0, width: 0.75, height: 0.5 });
    expect(cropRegionOf({ autocropDetectOnly: true }, job)).toBeUndefined();
    expect(cropRegionOf({}, { originalDimensions: { width: 400, height: 300 } })).toBeUndefined();
  });
});

describe('recordOriginal', () => {
  /** A layer's plugin data, as Figma keeps it per plugin. */
  const layer = () => {
    const data = new Map<string, string>();
    return { getPluginData: (k: string) => data.get(k) ?? '', setPluginData: (k: string, v: string) => void data.set(k, v) } as unknown as BaseNode;
  };

  it('keeps pointing at the first original across corrections, also when a correction returns the same image', () => {
    const node = layer();
    recordOriginal(node, 'original', 'first');
    recordOriginal(node, 'first', 'second');
    expect(readOriginals(node)).toEqual({ second: 'original' });
    // The service returned the same bytes: createImage gives the same hash, and the record must stay.
    recordOriginal(node, 'second', 'second');
    expect(readOriginals(node)).toEqual({ second: 'original' });
  });

  it('composes the crops of successive corrections into the part of the original shown, and remembers an unknown one', () => {
    const node = layer();
    recordCrop(node, 'original', 'first', { x: 0.5, y: 0, width: 0.5, height: 1 });
    recordCrop(node, 'first', 'second', { x: 0, y: 0.5, width: 0.5, height: 0.5 });
    expect(readCrop(node, 'second')).toEqual({ x: 0.5, y: 0.5, width: 0.25, height: 0.5 });
    recordCrop(node, 'second', 'third', undefined);
    expect(readCrop(node, 'third')).toBeUndefined();
    expect(readCrop(node, 'never cropped')).toBe(WHOLE_IMAGE);
  });
});

describe('the harness page\'s policy for the UI window', () => {
  it('leaves out what an https page cannot fetch over plain http (mixed content), whatever networkAccess allows', () => {
    const connect = (allowedDomains: string[]) => /connect-src ([^;]*)/.exec(uiContentSecurityPolicy({ allowedDomains, reasoning: '' }, 'published'))![1];
    expect(connect(['*'])).toBe('https: wss: http://localhost:* http://*.localhost:* http://127.0.0.1:* http://[::1]:*');
    expect(connect(['http://192.168.1.20:8080', 'https://api.perfectlyclear.io', 'http://localhost:8080'])).toBe('https://api.perfectlyclear.io http://localhost:8080');
    expect(connect(['http://192.168.1.20:8080'])).toBe("'none'");
  });
});
