#!/usr/bin/env node
// Photoshop panel benchmark: bundle size (what UXP loads), .ccx size, and the
// cost of the panel's own JavaScript pixel work (UXP has no native decoder):
// on a 12 MP result, JPEG decode (jpeg-js), PNG decode (src/image/png.ts) and a
// resample; and a background removal's cut-out on a 24 MP photo sent at the
// service's 5000 px as a JPEG (src/ps/export.ts): decoding what was sent and the
// cut-out, then fitting both to the full-size layer (src/image/pixels.ts
// cutoutParts). Writes bench-results/photoshop-panel.json at the repository root.
// Needs the panel built (`npm run build`).
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import sharp from 'sharp';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const repo = join(root, '../..');
const bundle = join(root, 'dist/index.js');
if (!existsSync(bundle)) throw new Error('build the panel first: npm run build -w pfc-photoshop');
const ccx = readdirSync(join(root, 'ccx')).find((f) => f.endsWith('.ccx'));
const js = readFileSync(bundle);

// The panel's pixel code, bundled for Node from its sources.
const out = await build({
  stdin: {
    contents: "export { decodeImage } from './src/image/codec.ts'; export { cutoutParts, resample, toRgba } from './src/image/pixels.ts';",
    resolveDir: root,
    loader: 'ts',
  },
  bundle: true, format: 'esm', platform: 'node', write: false, logLevel: 'warning',
});
const mod = await import(`data:text/javascript;base64,${Buffer.from(out.outputFiles[0].text).toString('base64')}`);

const photo = sharp(join(repo, 'samples/outdoors/rocket.jpg')).resize(4000, 3000, { fit: 'fill' });
const jpeg = new Uint8Array(await photo.clone().jpeg({ quality: 90 }).toBuffer());
const png = new Uint8Array(await photo.clone().ensureAlpha().png({ compressionLevel: 6 }).toBuffer());
const time = (fn) => {
  const t = performance.now();
  const r = fn();
  return [Math.round(performance.now() - t), r];
};
const [jpegMs, img] = time(() => mod.decodeImage(jpeg));
const [pngMs] = time(() => mod.decodeImage(png));
const [resampleMs] = time(() => mod.resample(img, 3000, 2250));

// A 24 MP photo's background removal: the upload (5000 px, JPEG q95, as the panel sends it over 30 MB of PNG) and
// the service's cut-out of it (the subject a centred ellipse, transparent around it).
const [W, H, w, h] = [6000, 4000, 5000, 3333];
const large = sharp(join(repo, 'samples/outdoors/rocket.jpg')).resize(W, H, { fit: 'fill' });
const source = mod.toRgba(W, H, new Uint8Array(await large.clone().raw().toBuffer()), 3);
const sentJpeg = new Uint8Array(await large.clone().resize(w, h).jpeg({ quality: 95 }).toBuffer());
const cutout = await sharp(sentJpeg).ensureAlpha().raw().toBuffer();
for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) if (((x - w / 2) / (0.35 * w)) ** 2 + ((y - h / 2) / (0.45 * h)) ** 2 > 1) cutout[(y * w + x) * 4 + 3] = 0;
const cutoutPng = new Uint8Array(await sharp(cutout, { raw: { width: w, height: h, channels: 4 } }).png({ compressionLevel: 6 }).toBuffer());
const [sentDecodeMs, sent] = time(() => mod.decodeImage(sentJpeg));
const [cutoutDecodeMs, cutoutResult] = time(() => mod.decodeImage(cutoutPng));
const [cutoutFitMs] = time(() => mod.cutoutParts(cutoutResult, source, sent));

const result = {
  bundleBytes: js.length,
  bundleGzipBytes: gzipSync(js).length,
  ccxBytes: ccx ? statSync(join(root, 'ccx', ccx)).size : null,
  decode12MpJpegMs: jpegMs,
  decode12MpPngMs: pngMs,
  resample12MpTo7MpMs: resampleMs,
  cutout24Mp: { decodeSentJpegMs: sentDecodeMs, decodeResultPngMs: cutoutDecodeMs, fitToLayerMs: cutoutFitMs, totalMs: sentDecodeMs + cutoutDecodeMs + cutoutFitMs },
};
mkdirSync(join(repo, 'bench-results'), { recursive: true });
writeFileSync(join(repo, 'bench-results/photoshop-panel.json'), `${JSON.stringify(result, null, 2)}\n`);
console.log(
  `photoshop panel: index.js ${(result.bundleBytes / 1024).toFixed(1)} KiB (${(result.bundleGzipBytes / 1024).toFixed(1)} KiB gzip), ` +
    `.ccx ${result.ccxBytes === null ? 'missing' : `${(result.ccxBytes / 1024).toFixed(1)} KiB`}; ` +
    `12 MP decode JPEG ${jpegMs} ms, PNG ${pngMs} ms; resample ${resampleMs} ms; ` +
    `24 MP cut-out ${result.cutout24Mp.totalMs} ms (decode sent JPEG ${sentDecodeMs}, cut-out PNG ${cutoutDecodeMs}, fit to the layer ${cutoutFitMs})`,
);
