import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { createNodeFetch } from '../src/index';

const MB = 1024 * 1024;

/**
 * Uploads `total` bytes of a generated stream to `url` with `createNodeFetch`
 * (or the global fetch) in a child process, and prints its peak RSS in MB.
 */
const UPLOADER = `
const [url, total, which] = process.argv.slice(1);
const { createNodeFetch } = await import('@pfc/batch');
const f = which === 'global' ? fetch : createNodeFetch();
let sent = 0;
const chunk = new Uint8Array(64 * 1024).fill(7);
const body = new ReadableStream({ pull(c) { if (sent >= Number(total)) return c.close(); sent += chunk.length; c.enqueue(chunk.slice()); } }, { highWaterMark: 0 });
const res = await f(url, { method: 'PUT', body, duplex: 'half', headers: { 'content-length': total } });
console.log(JSON.stringify({ status: res.status, text: await res.text(), rssMB: Math.round(process.resourceUsage().maxRSS / 1024) }));
`;

describe('createNodeFetch', () => {
  let server: http.Server | undefined;
  afterEach(() => server?.close());

  it('streams a large upload to a slow server without holding it in memory', async () => {
    server = http.createServer((req, res) => {
      let received = 0;
      // A slow reader: a short pause after every chunk.
      req.on('data', (c: Buffer) => {
        received += c.length;
        req.pause();
        setTimeout(() => req.resume(), 1);
      });
      req.on('end', () => res.writeHead(201).end(String(received)));
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const total = 320 * MB;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', UPLOADER, `http://127.0.0.1:${port}/up`, String(total), 'node'], {
      cwd: import.meta.dirname,
    });
    const out = JSON.parse(stdout) as { status: number; text: string; rssMB: number };
    expect(out).toMatchObject({ status: 201, text: String(total) });
    // Node's own fetch peaks above the body's size here (~370 MB); through node:http it stays near the runtime's baseline.
    expect(out.rssMB).toBeLessThan(200);
  }, 120_000);

  it('answers like fetch: status, headers and body of the server', async () => {
    server = http.createServer((req, res) => {
      let n = 0;
      req.on('data', (c: Buffer) => (n += c.length));
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json', 'x-got': String(n) }).end(JSON.stringify({ n })));
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const body = new Response(new Uint8Array(1000).fill(1)).body!;
    const res = await createNodeFetch()(`http://127.0.0.1:${port}/`, { method: 'PUT', body, duplex: 'half' } as RequestInit);
    expect([res.status, res.headers.get('x-got'), await res.json()]).toEqual([200, '1000', { n: 1000 }]);
  });

  it('passes other requests to the given fetch, and fails like fetch when nobody listens', async () => {
    const seen: string[] = [];
    const f = createNodeFetch(async (input) => {
      seen.push(String(input));
      return new Response('ok');
    });
    expect(await (await f('http://example.invalid/x')).text()).toBe('ok');
    expect(seen).toEqual(['http://example.invalid/x']);
    const err = await f('http://127.0.0.1:1/', { method: 'PUT', body: new Response('x').body } as RequestInit).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect((err as Error & { cause: { code: string } }).cause.code).toBe('ECONNREFUSED');
  });
});
