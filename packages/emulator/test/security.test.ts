/** Hostile input: path tricks, malformed requests, aborted uploads. The server keeps serving and stays in its folder. */
import { readdirSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorHandle } from '../src/index';
import { closeAll, COFFEE, emulator, H, json, runJob, xmlError } from './helpers';

let emu: EmulatorHandle;
let web: string;
let origin: string;
let storage: string;
beforeAll(async () => {
  emu = await emulator();
  web = emu.web;
  origin = new URL(web).origin;
  storage = emu.storage;
});
afterAll(closeAll);

/** Sends raw bytes on a socket; resolves with whatever comes back before the server closes or 2 s of silence. */
function raw(payload: string, to = origin): Promise<string> {
  const { hostname, port } = new URL(to);
  return new Promise((resolve) => {
    const s = connect(Number(port), hostname, () => s.write(payload));
    let out = '';
    s.on('data', (d) => (out += d.toString()));
    s.on('close', () => resolve(out));
    s.on('error', () => resolve(out));
    s.setTimeout(2000, () => s.destroy());
  });
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

describe('path traversal', () => {
  it.each([
    '/uploads/..%2F..%2F..%2Ftmp%2Fpwned',
    '/uploads/..%2f..%2fpackage.json',
    '/preset-uploads/..%2F..%2Fx',
  ])('signed PUT to storage %s is refused before touching disk', async (path) => {
    const t = await json<{ uploadUrl: string }>(await fetch(`${web}/upload`, { headers: H }));
    const signed = new URL(t.uploadUrl).search;
    const res = await fetch(`${storage}${path}${signed}`, { method: 'PUT', body: 'x' });
    expect(res.status).toBe(403);
    expect((await xmlError(res)).code).toBe('SignatureDoesNotMatch');
  });

  it.each(['/results/..%2F..%2Fpackage.json', '/results/..%2F..%2Fuploads%2Fx.jpg', '/results/%2e%2e%2f%2e%2e%2fetc%2fpasswd', '/results/../../../etc/passwd'])(
    'GET storage %s answers 4xx XML and leaks nothing',
    async (path) => {
      const res = await fetch(`${storage}${path}`);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      const text = await res.text();
      expect(text).not.toContain('root:');
      expect(text).toMatch(/^<\?xml/);
    },
  );

  it.each([
    '/v2/results/..%2F..%2Fpackage.json',
    '/v2/results/..%2F..%2Fuploads%2Fx.jpg',
    '/v2/results/%2e%2e%2f%2e%2e%2fetc%2fpasswd',
    '/v2/results/../../../etc/passwd',
    '/v2/presets/..%2F..%2Fetc/file',
    '/v2/status/..%2F..%2F',
    '/v2/status/%ZZ',
    '//etc/passwd',
  ])('GET %s answers 4xx {error} and leaks nothing', async (path) => {
    const res = await fetch(`${origin}${path}`, { headers: H });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    const text = await res.text();
    expect(text).not.toContain('root:');
    expect(JSON.parse(text)).toHaveProperty('error');
  });
});

describe('malformed requests', () => {
  it('answers garbage HTTP with 400 and oversized headers with 431, and keeps serving', async () => {
    expect(await raw('THIS IS NOT HTTP\r\n\r\n')).toMatch(/^HTTP\/1\.1 400/);
    expect(await raw(`GET /v2/upload HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(100_000)}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 431/);
    expect(await raw('GET /v2/upload HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n')).toMatch(/^HTTP\/1\.1 400/);
    expect((await runJob(web, COFFEE)).status).toBe('COMPLETED');
  });

  it('survives an upload aborted mid-body: no file kept, no temp file left', async () => {
    const t = await json<{ fileKey: string; uploadUrl: string }>(await fetch(`${web}/upload`, { headers: H }));
    const u = new URL(t.uploadUrl);
    // Declares 1 MB, sends 1 KB, hangs up.
    await raw(`PUT ${u.pathname}${u.search} HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n${'x'.repeat(1000)}`, storage).catch(() => '');
    expect(emu.stats().requests['upload.put']).toBeGreaterThanOrEqual(1);
    const deadline = Date.now() + 10_000;
    while (readdirSync(join(emu.dataDir, 'tmp')).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(readdirSync(join(emu.dataDir, 'tmp'))).toEqual([]);
    const pfc = await fetch(`${web}/pfc?fileKey=${t.fileKey}`, { headers: H });
    expect((await json(pfc)).error).toMatch(/has no file yet/);
    expect((await runJob(web, COFFEE)).status).toBe('COMPLETED');
  });

  it('handles odd queries and bodies without a 500', async () => {
    const JSON_H = { ...H, 'Content-Type': 'application/json' };
    const odd = [
      fetch(`${web}/pfc?fileKey=${'a'.repeat(5000)}&width=${'9'.repeat(400)}`, { headers: H }),
      fetch(`${web}/pfc?fileKey=%E0%A4%A&preset=%00`, { headers: H }),
      fetch(`${web}/presets/`, { method: 'POST', headers: JSON_H, body: '[]' }),
      fetch(`${web}/presets/`, { method: 'POST', headers: JSON_H, body: 'null' }),
      fetch(`${web}/presets/`, { method: 'POST', headers: JSON_H, body: '{"name":{"$gt":""}}' }),
      fetch(`${web}/upload?fileType=image&fileType=video&fileType=x`, { headers: H }),
    ];
    for (const res of await Promise.all(odd)) {
      expect(res.status).toBeLessThan(500);
      expect(await json(res)).toHaveProperty('error');
    }
    expect(emu.stats().responses['500']).toBeUndefined();
  });
});

describe('the data folder', () => {
  it('holds only its owner marker and uploads/, outputs/, presets/ files named by server ids', () => {
    for (const f of filesUnder(emu.dataDir)) {
      expect(relative(emu.dataDir, f)).toMatch(/^(\.pfc-owner\.json|uploads\/[0-9a-f-]{36}|outputs\/[0-9a-f-]{36}\.(jpg|png)|presets\/[0-9a-f-]{36}\.preset)$/);
    }
  });
});
