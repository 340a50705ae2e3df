/** npm tarballs of the published packages, packed from their built folders. */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { publishedPackages, ROOT } from './workspace.mjs';

/**
 * `npm pack` every published package into `dest` (one npm call; the packages
 * must be built). Returns `{ name, version, file, size, entryCount }` per
 * package, in dependency order.
 */
export function packAll(dest, root = ROOT) {
  mkdirSync(dest, { recursive: true });
  const pkgs = publishedPackages(root);
  const args = ['pack', '--json', '--pack-destination', dest, ...pkgs.flatMap((p) => ['-w', p.rel])];
  const out = execFileSync('npm', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
  const packed = JSON.parse(out.slice(out.indexOf('[')));
  return pkgs.map((p) => {
    const hit = packed.find((e) => e.name === p.pkg.name);
    if (!hit) throw new Error(`npm pack produced no tarball for ${p.pkg.name}`);
    return { name: hit.name, version: hit.version, file: join(dest, hit.filename), size: hit.size, entryCount: hit.entryCount };
  });
}
