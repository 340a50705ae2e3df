#!/usr/bin/env node
/**
 * Contact sheet of the imaging engine: one labelled row of before/after tiles
 * per feature, from the sample photos (samples/, public domain / CC0), so a
 * reviewer can look at what every feature does.
 *
 * Rows: colour correction of degraded copies; the four preset groups; the
 * scene detector; faces with eye positions; auto crop; background removal and
 * replacement with shadows and a generated backdrop; blemish and glare
 * retouching; AI Art styles and a character; AI upscaling (ESRGAN ×4 and ×2
 * against Lanczos, on a detail crop); the regenerated EXIF thumbnail
 * (updateThumbnail); video (a frame before and after, a dark clip and a
 * blue-cast clip). Every tile is produced by @pfc/engine here and now.
 *
 * Usage: node tools/contact-sheet.mjs [--out FILE]   (default out/contact-sheet.png)
 * Needs the engine built (`npm run build`).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import {
  applyAiArt,
  autoCropBox,
  closeEngineWorkers,
  composeBackground,
  correctImage,
  correctVideo,
  detectFaces,
  ffmpegPath,
  readExifThumbnail,
  removeBlemishes,
  removeGlare,
  sceneName,
  segmentPerson,
  setExifThumbnail,
  upscaleRaster,
} from '@pfc/engine';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const outFile = path.resolve(args[args.indexOf('--out') + 1] && args.includes('--out') ? args[args.indexOf('--out') + 1] : path.join(ROOT, 'out', 'contact-sheet.png'));
const TILE = 220;
const CAPTION = 20;
const TITLE = 26;

const sample = (p) => readFileSync(path.join(ROOT, 'samples', p));
const raster = async (input) => {
  const { data, info } = await sharp(input).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height, channels: 3 };
};
const png = (r) => sharp(Buffer.from(r.data.buffer, r.data.byteOffset, r.data.length), { raw: { width: r.width, height: r.height, channels: r.channels } }).png().toBuffer();
const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
const text = (s, w, h, size, weight = 'normal') =>
  Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="100%" height="100%" fill="#ffffff"/><text x="4" y="${h - 6}" font-family="sans-serif" font-size="${size}" font-weight="${weight}" fill="#222">${esc(s)}</text></svg>`);
/** A checkerboard under transparent pixels, so transparency shows. */
async function onChecker(pngBytes) {
  const { width, height } = await sharp(pngBytes).metadata();
  const cell = 10;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><pattern id="c" width="${cell * 2}" height="${cell * 2}" patternUnits="userSpaceOnUse"><rect width="${cell * 2}" height="${cell * 2}" fill="#fff"/><rect width="${cell}" height="${cell}" fill="#ccc"/><rect x="${cell}" y="${cell}" width="${cell}" height="${cell}" fill="#ccc"/></pattern></defs><rect width="100%" height="100%" fill="url(#c)"/></svg>`;
  return sharp(Buffer.from(svg)).composite([{ input: pngBytes }]).png().toBuffer();
}
/** Boxes and dots drawn over an image (faces, eyes, crops). */
async function overlay(input, shapes) {
  const { width, height } = await sharp(input).metadata();
  const body = shapes
    .map((s) => (s.kind === 'rect'
      ? `<rect x="${s.x}" y="${s.y}" width="${s.w}" height="${s.h}" fill="none" stroke="${s.colour}" stroke-width="3"/>`
      : `<circle cx="${s.x}" cy="${s.y}" r="4" fill="${s.colour}" stroke="#000" stroke-width="1"/>`))
    .join('');
  return sharp(input).composite([{ input: Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${body}</svg>`) }]).png().toBuffer();
}
const toLin = (v) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
const toEnc = (v) => {
  const c = Math.min(1, Math.max(0, v));
  return c <= 0.0031308 ? c * 12.92 : 1.055 * c ** (1 / 2.4) - 0.055;
};
function degrade(r, f) {
  const data = new Uint8Array(r.data.length);
  for (let i = 0; i < data.length; i++) data[i] = Math.round(Math.min(1, Math.max(0, f(r.data[i] / 255, i % 3))) * 255);
  return { ...r, data };
}

async function colourRow() {
  const astro = await raster(sample('portraits/astronaut.jpg'));
  const coffee = await raster(sample('objects/coffee.jpg'));
  const rocket = await raster(sample('outdoors/rocket.jpg'));
  const cases = [
    ['warm, dark', degrade(astro, (v, c) => toEnc(toLin(v) * [0.6, 0.45, 0.3][c]))],
    ['flat', degrade(coffee, (v) => 0.22 + 0.56 * v)],
    ['over-exposed', degrade(astro, (v) => toEnc(toLin(v) * 2))],
    ['cool cast', degrade(coffee, (v, c) => toEnc(toLin(v) * [0.75, 0.95, 1.3][c]))],
    ['night, flat', degrade(rocket, (v) => 0.2 + 0.6 * v)],
  ];
  const tiles = [];
  for (const [label, img] of cases) {
    const input = await png(img);
    tiles.push({ image: input, caption: `${label}: before` });
    tiles.push({ image: (await correctImage(input, {})).output, caption: 'after (engine)' });
  }
  return { title: 'Colour correction: degraded copies and the engine (AI preset selection)', tiles };
}

async function presetRow() {
  const input = sample('objects/coffee.jpg');
  const tiles = [{ image: input, caption: 'original' }];
  for (const preset of ['none', 'Universal', 'Pro', 'School and Sports', 'Attractions and Cruise Lines']) {
    tiles.push({ image: (await correctImage(input, { preset })).output, caption: preset === 'Attractions and Cruise Lines' ? 'Attractions/Cruise' : preset });
  }
  return { title: 'Preset groups (and none)', tiles };
}

async function sceneRow() {
  const tiles = [];
  for (const p of ['portraits/astronaut.jpg', 'portraits/grace_hopper.jpg', 'objects/coffee.jpg', 'objects/chelsea.png', 'outdoors/rocket.jpg']) {
    const r = await correctImage(sample(p), {});
    tiles.push({ image: sample(p), caption: `scene ${r.scene} (${sceneName(r.scene)})` });
  }
  return { title: 'Scene detector (drives AI preset selection)', tiles };
}

async function faceAndCropRows() {
  const faceTiles = [];
  const cropTiles = [];
  for (const p of ['portraits/astronaut.jpg', 'portraits/grace_hopper.jpg']) {
    const input = sample(p);
    const img = await raster(input);
    const faces = await detectFaces(img);
    const shapes = faces.flatMap((f) => [
      { kind: 'rect', x: f.left, y: f.top, w: f.width, h: f.height, colour: '#00e000' },
      { kind: 'dot', x: f.leftEye.x, y: f.leftEye.y, colour: '#ff3030' },
      { kind: 'dot', x: f.rightEye.x, y: f.rightEye.y, colour: '#3080ff' },
    ]);
    faceTiles.push({ image: await overlay(input, shapes), caption: `${faces.length} face, eyes L/R` });
    for (const [label, params] of [['4:5 head', { cropARW: '4', cropARH: '5', autocropSize: '0.4' }], ['1:1 tight', { cropARW: '1', cropARH: '1', autocropSize: '0.6' }]]) {
      const box = autoCropBox({ width: img.width, height: img.height }, params, faces);
      cropTiles.push({ image: await overlay(input, [{ kind: 'rect', x: box.x, y: box.y, w: box.width, h: box.height, colour: '#ffcc00' }]), caption: `${label}: box` });
      cropTiles.push({ image: await sharp(input).extract({ left: box.x, top: box.y, width: box.width, height: box.height }).png().toBuffer(), caption: 'cropped' });
    }
  }
  return [
    { title: 'Faces with eye positions', tiles: faceTiles },
    { title: 'Auto crop (head-centred; cropARW/H, autocropSize)', tiles: cropTiles },
  ];
}

async function backgroundRow() {
  const img = await raster(sample('portraits/grace_hopper.jpg'));
  const mask = await segmentPerson(img);
  const tiles = [{ image: await png(img), caption: 'original' }];
  tiles.push({ image: await onChecker(await png(await composeBackground(img, mask, { mode: 'transparent' }))), caption: 'transparent' });
  for (const shadow of ['soft', 'hard']) {
    tiles.push({ image: await png(await composeBackground(img, mask, { mode: 'colour', colour: '#f2f2f2', shadow })), caption: `colour + ${shadow} shadow` });
  }
  tiles.push({ image: await png(await composeBackground(img, mask, { mode: 'image', image: sample('outdoors/rocket.jpg') })), caption: 'image (bgFileKey)' });
  tiles.push({ image: await png(await composeBackground(img, mask, { mode: 'generative', prompt: 'sunset at the beach' })), caption: '"sunset at the beach"' });
  tiles.push({ image: await png(await composeBackground(img, mask, { mode: 'generative', prompt: 'city lights at night' })), caption: '"city lights at night"' });
  // A figure standing free shows the floating shadow (a cut-off portrait hides it): the cut-out, smaller, on margins.
  const cutout = await png(await composeBackground(img, mask, { mode: 'transparent' }));
  const free = sharp(await sharp(cutout).resize(200).extend({ top: 20, bottom: 90, left: 60, right: 60, background: { r: 0, g: 0, b: 0, alpha: 0 } }).png().toBuffer());
  const { data: rgba, info } = await free.ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const n = info.width * info.height;
  const rgb = { data: new Uint8Array(n * 3), width: info.width, height: info.height, channels: 3 };
  const alpha = { data: new Uint8Array(n), width: info.width, height: info.height };
  for (let i = 0; i < n; i++) {
    rgb.data.set(rgba.subarray(i * 4, i * 4 + 3), i * 3);
    alpha.data[i] = rgba[i * 4 + 3];
  }
  tiles.push({ image: await png(await composeBackground(rgb, alpha, { mode: 'colour', colour: '#f2f2f2', shadow: 'floating' })), caption: 'floating shadow' });
  return { title: 'Background removal and replacement (person mask)', tiles };
}

async function retouchRow() {
  const tiles = [];
  const astro = await raster(sample('portraits/astronaut.jpg'));
  const [f] = await detectFaces(astro);
  for (const [fx, fy] of [[0.3, 0.62], [0.7, 0.6], [0.55, 0.78]]) {
    const cx = Math.round(f.left + f.width * fx);
    const cy = Math.round(f.top + f.height * fy);
    for (let y = -2; y <= 2; y++) for (let x = -2; x <= 2; x++) if (x * x + y * y <= 5) {
      const i = ((cy + y) * astro.width + cx + x) * 3;
      astro.data[i] -= 55;
      astro.data[i + 1] -= 65;
      astro.data[i + 2] -= 60;
    }
  }
  const faceBox = { left: f.left, top: f.top, width: f.width, height: f.height };
  tiles.push({ image: await sharp(await png(astro)).extract(faceBox).png().toBuffer(), caption: 'spots: before' });
  tiles.push({ image: await sharp(await png(removeBlemishes(astro, [f]).raster)).extract(faceBox).png().toBuffer(), caption: 'removeBlemish' });
  const grace = await raster(sample('portraits/grace_hopper.jpg'));
  const [g] = await detectFaces(grace);
  const gx = g.leftEye.x + 18;
  const gy = g.leftEye.y - 12;
  for (let y = -7; y <= 7; y++) for (let x = -10; x <= 10; x++) {
    const q = (x / 10) ** 2 + (y / 7) ** 2;
    if (q > 1) continue;
    const i = (Math.round(gy + y) * grace.width + Math.round(gx + x)) * 3;
    for (let c = 0; c < 3; c++) grace.data[i + c] = Math.round(grace.data[i + c] * q + 250 * (1 - q));
  }
  const d = g.rightEye.x - g.leftEye.x;
  const lens = { left: Math.round(g.leftEye.x - 0.8 * d), top: Math.round(g.leftEye.y - 0.5 * d), width: Math.round(2.6 * d), height: Math.round(d) };
  tiles.push({ image: await sharp(await png(grace)).extract(lens).png().toBuffer(), caption: 'lens glare: before' });
  tiles.push({ image: await sharp(await png(removeGlare(grace, [g]).raster)).extract(lens).png().toBuffer(), caption: 'removeGlares' });
  return { title: 'Retouching (painted-on spots and glare)', tiles };
}

async function artRow() {
  const img = await raster(await sharp(sample('portraits/astronaut.jpg')).resize(384).toBuffer());
  const tiles = [{ image: await png(img), caption: 'original' }];
  for (const token of ['pencilBw', 'oilPainting', 'cartoon', 'watercolor', 'softPastel', 'comics', 'popArt', 'vanGogh', 'singlePirate']) {
    tiles.push({ image: await png(await applyAiArt(img, { token, segment: (r) => segmentPerson(r) })), caption: token });
  }
  return { title: 'AI Art (styles and a character)', tiles };
}

/** Peak signal-to-noise ratio (dB) of two same-size RGB rasters: higher is closer. */
function psnr(a, b) {
  let se = 0;
  for (let i = 0; i < a.data.length; i++) se += (a.data[i] - b.data[i]) ** 2;
  return 10 * Math.log10((255 * 255) / (se / a.data.length));
}

async function upscaleRow() {
  const original = await raster(sample('portraits/astronaut.jpg'));
  const { width: W, height: H } = original;
  // Detail: eyes and mouth, a fifth of the width, so each tile shows it enlarged about ×2.
  const crop = { left: Math.round(W * 0.35), top: Math.round(H * 0.13), width: Math.round(W * 0.2), height: Math.round(W * 0.2) };
  const detail = async (r) => sharp(await png(r)).extract(crop).png().toBuffer();
  const tiles = [{ image: await detail(original), caption: 'original (detail)' }];
  for (const factor of [4, 2]) {
    const small = await raster(await sharp(await png(original)).resize(Math.round(W / factor), Math.round(H / factor), { kernel: 'lanczos3' }).png().toBuffer());
    const nearest = await raster(await sharp(await png(small)).resize(W, H, { kernel: 'nearest' }).png().toBuffer());
    const lanczos = await raster(await sharp(await png(small)).resize(W, H, { kernel: 'lanczos3' }).png().toBuffer());
    const ai = await upscaleRaster(small, { width: W, height: H }, factor === 4 ? 'general' : 'smallDetails');
    if (factor === 4) tiles.push({ image: await detail(nearest), caption: `input 1/${factor} (pixels)` });
    tiles.push({ image: await detail(lanczos), caption: `Lanczos ×${factor}: ${psnr(lanczos, original).toFixed(1)} dB` });
    tiles.push({ image: await detail(ai.raster), caption: `${ai.method}: ${psnr(ai.raster, original).toFixed(1)} dB` });
  }
  return { title: 'AI upscaling (resize): ESRGAN-slim vs Lanczos from a 1/4 and 1/2 copy; PSNR to the original', tiles };
}

async function thumbnailRow() {
  // A dark, warm photo whose EXIF carries its own thumbnail, as a camera writes it.
  const dark = await sharp(await png(degrade(await raster(sample('portraits/astronaut.jpg')), (v, c) => toEnc(toLin(v) * [0.4, 0.3, 0.2][c]))))
    .jpeg({ quality: 90 })
    .withExif({ IFD0: { Make: 'pfc contact sheet' } })
    .toBuffer();
  const input = setExifThumbnail(dark, await sharp(dark).resize(160).jpeg().toBuffer());
  const stale = (await correctImage(input, { updateThumbnail: false })).output;
  const fresh = (await correctImage(input, { updateThumbnail: true })).output;
  return {
    title: 'updateThumbnail: the EXIF thumbnail of a corrected JPEG, kept as it was or regenerated',
    tiles: [
      { image: input, caption: 'input photo' },
      { image: readExifThumbnail(input), caption: 'input thumbnail' },
      { image: fresh, caption: 'corrected photo' },
      { image: readExifThumbnail(stale), caption: 'thumbnail, update false' },
      { image: readExifThumbnail(fresh), caption: 'thumbnail, update true' },
    ],
  };
}

async function videoRow() {
  const work = mkdtempSync(path.join(tmpdir(), 'pfc-sheet-'));
  const ffmpeg = ffmpegPath();
  const frameAt = (file, t) => execFileSync(ffmpeg, ['-loglevel', 'error', '-ss', String(t), '-i', file, '-frames:v', '1', '-f', 'image2pipe', '-vcodec', 'png', '-'], { maxBuffer: 1 << 26 });
  /** A 1 s clip of a still, with an ffmpeg filter (a cast) or none; its middle frame before and after correctVideo. */
  const clip = async (name, still, size, filter) => {
    const frame = path.join(work, `${name}.png`);
    await sharp(still).resize(size[0], size[1]).toFile(frame);
    const input = path.join(work, `${name}.mp4`);
    const output = path.join(work, `${name}-fixed.mp4`);
    execFileSync(ffmpeg, ['-loglevel', 'error', '-loop', '1', '-i', frame, '-t', '1', '-r', '10', '-pix_fmt', 'yuv420p', '-vf', [`scale=${size[0]}:${size[1]}`, ...(filter ? [filter] : [])].join(','), input]);
    await correctVideo(input, output, {});
    return [frameAt(input, 0.5), frameAt(output, 0.5)];
  };
  try {
    const dark = await png(degrade(await raster(sample('objects/coffee.jpg')), (v, c) => toEnc(toLin(v) * [0.55, 0.45, 0.35][c])));
    const [darkIn, darkOut] = await clip('dark', dark, [320, 214], '');
    const portrait = sample('portraits/grace_hopper.jpg');
    const [blueIn, blueOut] = await clip('blue', portrait, [320, 376], 'colorchannelmixer=rr=0.75:gg=0.9:bb=1');
    const [orangeIn, orangeOut] = await clip('orange', portrait, [320, 376], 'colorchannelmixer=rr=1:gg=0.88:bb=0.7');
    return {
      title: 'Video (a frame of each MP4 before and after correctVideo; one plan per clip)',
      tiles: [
        { image: darkIn, caption: 'dark clip: before' },
        { image: darkOut, caption: 'after' },
        { image: await sharp(portrait).png().toBuffer(), caption: 'portrait, no cast' },
        { image: blueIn, caption: 'blue-cast clip: before' },
        { image: blueOut, caption: 'after' },
        { image: orangeIn, caption: 'orange-cast clip: before' },
        { image: orangeOut, caption: 'after' },
      ],
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function render(rows) {
  const width = Math.max(...rows.map((r) => r.tiles.length)) * TILE;
  const layers = [];
  let y = 0;
  for (const row of rows) {
    layers.push({ input: text(row.title, width, TITLE, 17, 'bold'), left: 0, top: y });
    y += TITLE;
    for (const [i, t] of row.tiles.entries()) {
      layers.push({ input: await sharp(t.image).resize(TILE - 6, TILE - 6, { fit: 'contain', background: '#ffffff' }).flatten({ background: '#ffffff' }).png().toBuffer(), left: i * TILE + 3, top: y + 3 });
      layers.push({ input: text(t.caption, TILE, CAPTION, 13), left: i * TILE, top: y + TILE });
    }
    y += TILE + CAPTION + 8;
  }
  mkdirSync(path.dirname(outFile), { recursive: true });
  await sharp({ create: { width, height: y, channels: 3, background: '#ffffff' } }).composite(layers).png().toFile(outFile);
}

async function main() {
  const started = performance.now();
  const rows = [await colourRow(), await presetRow(), await sceneRow(), ...(await faceAndCropRows()), await backgroundRow(), await retouchRow(), await artRow(), await upscaleRow(), await thumbnailRow(), await videoRow()];
  await render(rows);
  console.log(`contact sheet: ${path.relative(process.cwd(), outFile)} (${rows.length} rows, ${((performance.now() - started) / 1000).toFixed(1)} s)`);
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => closeEngineWorkers());
