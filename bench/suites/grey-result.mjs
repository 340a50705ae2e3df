/**
 * A greyscale photo's result made greyscale again (batch's `greyResult`):
 * @pfc/core's `yccJpegAsGrey` — pure JS, no re-encode, the service's pixels
 * exactly — beside what a host with an image library could do instead,
 * sharp's decode → greyscale → encode (a second lossy encode), on the same
 * JPEGs in the same run. Time per megapixel and output size, at two sizes.
 * `yccJpegAsGrey` is synchronous: its time is also how long it holds the
 * event loop for one file.
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

/** A colour JPEG with no colour, about `mp` megapixels. */
async function neutralJpeg(sharp, mp) {
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
  const jpeg = await sharp(grey, { raw: { width, height, channels: 1 } }).toColourspace('srgb').jpeg({ quality: 90, chromaSubsampling: '4:2:0' }).toBuffer();
  return { mp, width, height, jpeg };
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
async function problemOf(sharp, image, grey) {
  if (!grey) return 'yccJpegAsGrey did not apply';
  const meta = await sharp(grey).metadata();
  if (meta.channels !== 1 || meta.width !== image.width || meta.height !== image.height) return `${meta.channels} channels, ${meta.width}×${meta.height}`;
  const own = await sharp(grey, { failOn: 'warning' }).toColourspace('b-w').raw().toBuffer();
  const rgb = await sharp(image.jpeg).raw().toBuffer();
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
    const { yccJpegAsGrey } = await import('@pfc/core');
    const sizes = quick ? [2, 8] : [12, 48];
    const rows = [];
    for (const mp of sizes) {
      const image = await neutralJpeg(sharp, mp);
      const core = await timed(() => yccJpegAsGrey(image.jpeg));
      const problem = await problemOf(sharp, image, core.result);
      if (problem) throw new Error(`yccJpegAsGrey on ${mp} MP: wrong output: ${problem}`);
      const viaSharp = await timed(() => sharp(image.jpeg).toColourspace('b-w').jpeg({ quality: 90 }).toBuffer());
      const exactMp = (image.width * image.height) / 1e6;
      const row = {
        mp, width: image.width, height: image.height, inputBytes: image.jpeg.length,
        coreMs: core.ms, coreMsPerMp: core.ms / exactMp, coreBytes: core.result.length,
        sharpMs: viaSharp.ms, sharpMsPerMp: viaSharp.ms / exactMp, sharpBytes: viaSharp.result.length,
      };
      rows.push(row);
      log(`${mp} MP (${(row.inputBytes / MB).toFixed(1)} MB): core ${row.coreMsPerMp.toFixed(1)} ms/MP (${row.coreMs.toFixed(0)} ms, ${(row.coreBytes / MB).toFixed(2)} MB, exact); sharp re-encode ${row.sharpMsPerMp.toFixed(1)} ms/MP (${row.sharpMs.toFixed(0)} ms, ${(row.sharpBytes / MB).toFixed(2)} MB)`);
    }
    const figures = rows.flatMap((r) => [
      { name: `${r.mp} MP: core (yccJpegAsGrey)`, value: +r.coreMsPerMp.toFixed(1), unit: 'ms/MP', note: `${r.coreMs.toFixed(0)} ms holding the event loop; ${(r.coreBytes / MB).toFixed(2)} MB from ${(r.inputBytes / MB).toFixed(2)} MB; pixels exact` },
      { name: `${r.mp} MP: sharp decode → grey → encode`, value: +r.sharpMsPerMp.toFixed(1), unit: 'ms/MP', note: `${r.sharpMs.toFixed(0)} ms off the event loop (libvips, ${sharp.concurrency()} threads); ${(r.sharpBytes / MB).toFixed(2)} MB; a second lossy encode` },
      { name: `${r.mp} MP: core's time ÷ sharp's`, value: +(r.coreMs / r.sharpMs).toFixed(2), unit: '×' },
    ]);
    return {
      figures,
      data: { rows },
      notes: [
        `Inputs: ${PHOTO} scaled up (Lanczos) to ${sizes.join(' and ')} MP as grey with a seeded noise of ±3 levels, encoded by sharp as a colour JPEG (R = G = B, 4:2:0, quality 90), as the emulator returns a grey photo. Median of ${RUNS} runs each, in this process.`,
        'Core output checked before its time counts: one component, same size, every sample equal to the colour JPEG\'s decoded R = G = B (libjpeg-turbo, failOn warning).',
      ],
    };
  },
};
