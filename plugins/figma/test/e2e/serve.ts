/**
 * Node side of the e2e test: bundles the harness page and serves it with the
 * built plugin files on 127.0.0.1 (a loopback origin, like the emulator's, so
 * Chromium's private-network rules do not get in the way), plus a server that
 * answers without CORS headers, to show what a blocked request looks like.
 */
import { readFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export const PLUGIN_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

async function listen(server: Server): Promise<{ url: string; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** Serve `/` (the harness page), `/harness.js` and the built `/dist/code.js` and `/dist/ui.html`. */
export async function serveHarness(): Promise<{ url: string; close: () => Promise<void> }> {
  const bundle = await build({
    entryPoints: [join(PLUGIN_DIR, 'test/e2e/harness-page.ts')],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    write: false,
  });
  const harnessJs = bundle.outputFiles[0]?.text ?? '';
  const page = '<!doctype html><html><head><meta charset="utf-8"><title>Figma host simulation</title></head><body style="margin:8px;background:#e5e5e5"><script src="/harness.js"></script></body></html>';
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const send = (type: string, body: string | Buffer) => {
      res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    if (path === '/') return send('text/html; charset=utf-8', page);
    if (path === '/harness.js') return send('text/javascript', harnessJs);
    if (path === '/dist/code.js' || path === '/dist/ui.html') {
      readFile(join(PLUGIN_DIR, path)).then(
        (b) => send(path.endsWith('.js') ? 'text/javascript' : 'text/html; charset=utf-8', b),
        () => {
          res.writeHead(404).end('build the plugin first');
        },
      );
      return;
    }
    res.writeHead(404).end();
  });
  return listen(server);
}

/**
 * The emulator as a server without CORS headers: every request is passed on
 * to `target` and the answer comes back with its `Access-Control-*` headers
 * removed (preflights included), so a browser refuses it for `Origin: null`.
 * Records each request's Origin.
 */
export async function serveWithoutCors(target: string): Promise<{ url: string; origins: (string | undefined)[]; close: () => Promise<void> }> {
  const origins: (string | undefined)[] = [];
  const to = new URL(target);
  const server = createServer((req, res) => {
    origins.push(req.headers.origin);
    const upstream = request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: { ...req.headers, host: to.host } }, (answer) => {
      const headers = Object.fromEntries(Object.entries(answer.headers).filter(([k]) => !k.startsWith('access-control-')));
      res.writeHead(answer.statusCode ?? 502, headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  return { ...(await listen(server)), origins };
}
