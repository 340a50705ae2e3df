/**
 * A greyscale photo's result made greyscale again (batch's `greyResultWriter`):
 * @pfc/core's `yccJpegAsGrey` and `rgbPngAsGrey` — pure JS, the service's
 * pixels exactly — beside what a host with an image library could do
 * instead, sharp's decode → greyscale → encode (for JPEG a second lossy
 * encode), on the same files in the same run. Time per megapixel and output
 * size, at two sizes. `yccJpegAsGrey` is synchronous: its time is also how
 * long it holds the event loop for one file; `rgbPngAsGrey` is streamed.
 *
 * The inputs are what the emulator's Web API returns for a grey photo: a
 * colour JPEG (4:2:0, quality 90) whose pixels are R = G = B, made from a
 * sample photo scaled up with a seeded noise so it compresses like a
 * camera's. Each core output is checked (one component, every sample equal to
 * the input's decoded R = G = B) before its time counts.
 */
import path from 'node:path';
import { ROOT } from '../lib/paths.mjs';

const MB = 1e6;
const PHOTO = 'outdoors/rocket.jpg';
const RUNS = 3;

/** A colour JPEG (4:2:0, quality 90) and PNG with no colour, about `mp` megapixels. */
async function neutralImages(sharp, mp) {
  const src = path.join(ROOT, 'samples', PHOTO);
  const meta = await sharp(src).metadata();
  const k = Math.sqrt((mp * 1e6) / (meta.width * meta.height));
  const [width, height] = [Math.round(meta.width * k), Math.round(meta.height * k)];
  const grey = await sharp(src).resize(width, height, { kernel: 'lanczos3' }).toColourspace('b-w').raw().toBuffer();
  let seed = 7;
  for (let i = 0; i < grey.length; i++) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    const v = grey[i] + (((seed >>> 16) & 7) - 3);
    grey[i] = v < 0 ? 0 : v > 255 ? 255 : v;
  }
  const rgb = sharp(grey, { raw: { width, height, channels: 1 } }).toColourspace('srgb');
  const jpeg = await rgb.clone().jpeg({ quality: 90, chromaSubsampling: '4:2:0' }).toBuffer();
  const png = await rgb.clone().png().toBuffer();
  return { mp, width, height, jpeg, png };
}

/** The median of `RUNS` timings of `f`, and its last result. */
async function timed(f) {
  const times = [];
  let result;
  for (let k = 0; k < RUNS; k++) {
    const t0 = performance.now();
    result = await f();
    times.push(performance.now() - t0);
  }
  return { ms: times.sort((a, b) => a - b)[Math.floor(RUNS / 2)], result };
}

/** Core's output: one component, every sample the input's decoded R (= G = B); else why not. */
async function problemOf(sharp, width, height, input, grey) {
  if (!grey) return 'the rewrite did not apply';
  const meta = await sharp(grey).metadata();
  if (meta.channels !== 1 || meta.width !== width || meta.height !== height) return `${meta.channels} channels, ${meta.width}×${meta.height}`;
  const own = await sharp(grey, { failOn: 'warning' }).toColourspace('b-w').raw().toBuffer();
  const rgb = await sharp(input).raw().toBuffer();
  for (let i = 0; i < own.length; i++) {
    if (rgb[3 * i] !== own[i] || rgb[3 * i + 1] !== own[i] || rgb[3 * i + 2] !== own[i]) return `pixel ${i}: ${own[i]} against ${rgb.subarray(3 * i, 3 * i + 3).join('/')}`;
  }
  return undefined;
}

export default {
  name: 'grey-result',
  area: 'Grey result',
  title: "A greyscale photo's result made greyscale again: core's lossless rewrite vs sharp's re-encode",
  async run({ quick, log }) {
    const { default: sharp } = await import('sharp');
    const { rgbPngAsGrey, yccJpegAsGrey } = await import('@pfc/core');
    const sides = {
      jpeg: {
        core: (bytes) => yccJpegAsGrey(bytes),
        sharp: (bytes) => sharp(bytes).toColourspace('b-w').jpeg({ quality: 90 }).toBuffer(),
        coreName: 'yccJpegAsGrey, synchronous',
        sharpNote: 'a second lossy encode',
      },
      png: {
        core: async (bytes) => {
          const grey = await rgbPngAsGrey(new Blob([bytes]).stream());
          return grey && new Uint8Array(await new Response(grey).arrayBuffer());
        },
        sharp: (bytes) => sharp(bytes).toColourspace('b-w').png().toBuffer(),
        coreName: 'rgbPngAsGrey, streamed',
        sharpNote: 'lossless too',
      },
    };
    const sizes = quick ? [2, 8] : [12, 48];
    const rows = [];
    for (const mp of sizes) {
      const image = await neutralImages(sharp, mp);
      for (const [format, side] of Object.entries(sides)) {
        const input = image[format];
        const core = await timed(() => side.core(input));
        const problem = await problemOf(sharp, image.width, image.height, input, core.result);
        if (problem) throw new Error(`${side.coreName} on ${mp} MP ${format}: wrong output: ${problem}`);
        const viaSharp = await timed(() => side.sharp(input));
        const exactMp = (image.width * image.height) / 1e6;
        const row = {
          mp, format, width: image.width, height: image.height, inputBytes: input.length,
          coreMs: core.ms, coreMsPerMp: core.ms / exactMp, coreBytes: core.result.length,
          sharpMs: viaSharp.ms, sharpMsPerMp: viaSharp.ms / exactMp, sharpBytes: viaSharp.result.length,
        };
        rows.push(row);
        log(`${mp} MP ${format} (${(row.inputBytes / MB).toFixed(1)} MB): core ${row.coreMsPerMp.toFixed(1)} ms/MP (${row.coreMs.toFixed(0)} ms, ${(row.coreBytes / MB).toFixed(2)} MB, exact); sharp ${row.sharpMsPerMp.toFixed(1)} ms/MP (${row.sharpMs.toFixed(0)} ms, ${(row.sharpBytes / MB).toFixed(2)} MB)`);
      }
    }
    const figures = rows.flatMap((r) => [
      { name: `${r.mp} MP ${r.format}: core (${sides[r.format].coreName})`, value: +r.coreMsPerMp.toFixed(1), unit: 'ms/MP', note: `${r.coreMs.toFixed(0)} ms; ${(r.coreBytes / MB).toFixed(2)} MB from ${(r.inputBytes / MB).toFixed(2)} MB; pixels exact` },
      { name: `${r.mp} MP ${r.format}: sharp decode → grey → encode`, value: +r.sharpMsPerMp.toFixed(1), unit: 'ms/MP', note: `${r.sharpMs.toFixed(0)} ms off the event loop (libvips, ${sharp.concurrency()} threads); ${(r.sharpBytes / MB).toFixed(2)} MB; ${sides[r.format].sharpNote}` },
      { name: `${r.mp} MP ${r.format}: core's time ÷ sharp's`, value: +(r.coreMs / r.sharpMs).toFixed(2), unit: '×' },
    ]);
    return {
      figures,
      data: { rows },
      notes: [
        `Inputs: ${PHOTO} scaled up (Lanczos) to ${sizes.join(' and ')} MP as grey with a seeded noise of ±3 levels, encoded by sharp as a colour JPEG (R = G = B, 4:2:0, quality 90) and an 8-bit RGB PNG, as the emulator returns a grey photo. Median of ${RUNS} runs each, in this process (the PNG read from and written to memory).`,
        'Core output checked before its time counts: one component, same size, every sample equal to the colour image\'s decoded R = G = B (libjpeg-turbo and libpng, failOn warning).',
      ],
    };
  },
};
