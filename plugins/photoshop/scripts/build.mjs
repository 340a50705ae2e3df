#!/usr/bin/env node
// Builds the panel into dist/ (the folder the UXP Developer Tool loads:
// manifest.json, index.html, index.js, icons/) and packs that folder into
// ccx/pfc-photoshop-<version>.ccx (a zip, the format Creative Cloud installs).
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, copyFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { zipSync } from 'fflate';
import sharp from 'sharp';
import { PANEL_BUNDLE } from './bundle-options.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const ccxDir = join(root, 'ccx');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

rmSync(dist, { recursive: true, force: true });
rmSync(ccxDir, { recursive: true, force: true });
mkdirSync(join(dist, 'icons'), { recursive: true });
mkdirSync(ccxDir, { recursive: true });

// One script, bundled for UXP (bundle-options.mjs).
await build({
  ...PANEL_BUNDLE,
  entryPoints: [join(root, 'src/main.ts')],
  outfile: join(dist, 'index.js'),
  minify: true,
  sourcemap: false,
  legalComments: 'eof',
  logLevel: 'warning',
});

copyFileSync(join(root, 'src/index.html'), join(dist, 'index.html'));

const manifest = JSON.parse(readFileSync(join(root, 'manifest.json'), 'utf8'));
manifest.version = pkg.version;
writeFileSync(join(dist, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');

// Icons from one SVG: light strokes for dark themes and the reverse, at 1x and 2x.
const svg = readFileSync(join(root, 'assets/icon.svg'), 'utf8');
const icon = (colour, size, file) =>
  sharp(Buffer.from(svg.replaceAll('COLOR', colour))).resize(size, size).png().toFile(join(dist, 'icons', file));
await Promise.all([
  icon('#e8e8e8', 23, 'panel-dark.png'),
  icon('#e8e8e8', 46, 'panel-dark@2x.png'),
  icon('#323232', 23, 'panel-light.png'),
  icon('#323232', 46, 'panel-light@2x.png'),
  icon('#1473e6', 48, 'plugin.png'),
  icon('#1473e6', 96, 'plugin@2x.png'),
]);

// The .ccx: the dist folder's files at the archive root.
const files = {};
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else files[relative(dist, path).split('\\').join('/')] = readFileSync(path);
  }
};
walk(dist);
const ccx = join(ccxDir, `pfc-photoshop-${pkg.version}.ccx`);
writeFileSync(ccx, zipSync(files, { level: 9 }));

const size = (p) => statSync(p).size;
console.log(
  `photoshop panel: dist/index.js ${(size(join(dist, 'index.js')) / 1024).toFixed(1)} KiB, ` +
    `${relative(root, ccx)} ${(size(ccx) / 1024).toFixed(1)} KiB`,
);
