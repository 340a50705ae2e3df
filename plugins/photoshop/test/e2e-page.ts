/**
 * What the panel e2e test needs besides a browser: the simulated host bundled
 * for the page (injected before the panel's script), and a loopback HTTP
 * server for the built panel (dist/) and the sample photos. Loopback, like the emulator, so Chromium
 * treats the page and the API as the same (local) address space.
 */
import { createServer, type Server } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { SAMPLES } from './helpers';

export const PANEL_DIR = fileURLToPath(new URL('../', import.meta.url));
export const DIST = join(PANEL_DIR, 'dist');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.json': 'application/json',
  '.png': 'image/png', '.jpg': 'image/jpeg',
};

/**
 * The simulated `photoshop`/`uxp` modules and `window.__sim`, as one script for the page, enforcing
 * `domains` as the manifest's network permission (default: the shipped manifest's).
 */
export async function bundleSim(domains?: string[]): Promise<string> {
  const manifest = JSON.parse(await readFile(join(DIST, 'manifest.json'), 'utf8')) as { requiredPermissions: { network: { domains: unknown } } };
  const out = await build({
    define: { __PANEL_NETWORK_DOMAINS__: JSON.stringify(domains ?? manifest.requiredPermissions.network.domains) },
    entryPoints: [join(PANEL_DIR, 'test/sim/browser-entry.ts')],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'warning',
  });
  return out.outputFiles[0]!.text;
}

/** Serves `/` from dist/ and `/samples/…`; resolves with its origin. */
export async function startPanelServer(): Promise<{ origin: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
      const [base, rel] = path.startsWith('/samples/') ? [SAMPLES, path.slice('/samples/'.length)] : [DIST, path === '/' ? 'index.html' : path.slice(1)];
      const file = normalize(join(base, rel));
      if (!file.startsWith(normalize(base))) {
        res.writeHead(403).end();
        return;
      }
      try {
        const body = await readFile(file);
        res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body);
      } catch {
        res.writeHead(404).end();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return {
    origin: `http://127.0.0.1:${address.port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
