/**
 * The background-removal container emulation with its default engine
 * (@pfc/engine's person segmentation, shared with the Web API), over HTTP:
 * Authorize, SubmitImage (multipart), CheckImage, DownloadImage. Started
 * through `startEmulator` with no `engine` option, so the default wiring is
 * what is tested. Generous timeouts: the first job loads the model.
 */
import { createImagingEngine } from '@pfc/engine';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plainBorderShare, PLAIN_BORDER_SHARE } from '../src/bgr/mask';
import { ASTRONAUT, closeAll, emulator } from './helpers';

let bgr = '';
beforeAll(async () => {
  bgr = (await emulator({ container: false })).urls.bgr!;
  expect((await fetch(`${bgr}/Authorize/any-key`)).status).toBe(200);
}, 60_000);
afterAll(closeAll);

/** Submit, wait for the job (bounded), download: the result PNG. */
async function cutOut(bytes: Buffer, mode: 'portrait' | 'general'): Promise<Buffer> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type: 'image/jpeg' }), 'photo.jpg');
  form.append('mode', mode);
  const sub = (await (await fetch(`${bgr}/SubmitImage`, { method: 'POST', body: form })).json()) as { process_id: string; mode: string };
  expect(sub.mode).toBe(mode);
  const deadline = Date.now() + 90_000;
  for (;;) {
    const check = (await (await fetch(`${bgr}/CheckImage/${sub.process_id}`)).json()) as { status: string; error?: string };
    if (check.status === 'completed') break;
    if (check.status === 'failed' || Date.now() > deadline) throw new Error(`job ${sub.process_id}: ${JSON.stringify(check)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const dl = await fetch(`${bgr}/DownloadImage/${sub.process_id}`);
  expect(dl.status).toBe(200);
  expect(dl.headers.get('content-type')).toBe('image/png');
  return Buffer.from(await dl.arrayBuffer());
}

interface Alpha {
  data: Buffer;
  width: number;
  height: number;
}
async function alphaOf(png: Buffer): Promise<Alpha> {
  expect(await sharp(png).metadata()).toMatchObject({ format: 'png', hasAlpha: true, channels: 4 });
  const { data, info } = await sharp(png).extractChannel(3).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}
/** Mean alpha (0–255) over a rectangle. */
function meanIn(a: Alpha, x0: number, y0: number, w: number, h: number): number {
  let sum = 0;
  let n = 0;
  for (let y = Math.max(0, Math.round(y0)); y < Math.min(a.height, Math.round(y0 + h)); y++) {
    for (let x = Math.max(0, Math.round(x0)); x < Math.min(a.width, Math.round(x0 + w)); x++, n++) sum += a.data[y * a.width + x]!;
  }
  return sum / Math.max(1, n);
}

async function faceBox(bytes: Buffer) {
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const { faces } = await createImagingEngine().detect({ data, width: info.width, height: info.height, channels: 3 });
  expect(faces.length).toBe(1);
  return faces[0]!;
}

describe('BGR container: the default engine', () => {
  it('/Status names the engine segmentation model', async () => {
    const status = (await (await fetch(`${bgr}/Status`)).json()) as { model_version: string };
    expect(status.model_version).toBe('emulator-engine-segmentation');
  });

  it.each(['portrait', 'general'] as const)('mode=%s: the person opaque (face box), the backdrop clear (top corners)', async (mode) => {
    const face = await faceBox(ASTRONAUT);
    const alpha = await alphaOf(await cutOut(ASTRONAUT, mode));
    expect({ width: alpha.width, height: alpha.height }).toEqual({ width: 512, height: 512 });
    // The middle half of the face box: skin, eyes, mouth.
    expect(meanIn(alpha, face.left + face.width / 4, face.top + face.height / 4, face.width / 2, face.height / 2)).toBeGreaterThan(220);
    // The top corners (flag, shuttle, wall): background. The bottom ones are the suit and the helmet she holds.
    const c = Math.round(alpha.width * 0.1);
    expect(meanIn(alpha, 0, 0, c, c)).toBeLessThan(30);
    expect(meanIn(alpha, alpha.width - c, 0, c, c)).toBeLessThan(30);
  }, 120_000);

  it('mode=general on a plain backdrop adds the colour mask: a whole object, the backdrop clear', async () => {
    // A red bottle with a blue cap on a light grey studio backdrop: no person for the model to find.
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="600" height="400"><rect width="600" height="400" fill="#f4f4f4"/>
      <ellipse cx="300" cy="220" rx="120" ry="140" fill="#c03020"/><rect x="260" y="60" width="80" height="50" fill="#205080"/></svg>`;
    const product = await sharp(Buffer.from(svg)).jpeg({ quality: 95 }).toBuffer();
    const { data, info } = await sharp(product).raw().toBuffer({ resolveWithObject: true });
    expect(plainBorderShare({ data, width: info.width, height: info.height, channels: 3 })).toBeGreaterThanOrEqual(PLAIN_BORDER_SHARE);
    const general = await alphaOf(await cutOut(product, 'general'));
    expect(meanIn(general, 270, 70, 60, 30)).toBeGreaterThan(240); // the cap
    expect(meanIn(general, 220, 150, 160, 140)).toBeGreaterThan(240); // the body
    expect(meanIn(general, 0, 0, 120, 400)).toBeLessThan(5); // backdrop, left
    expect(meanIn(general, 480, 0, 120, 400)).toBeLessThan(5); // backdrop, right
    // portrait is the person model alone: a valid cut-out too, never more of the object than general.
    const portrait = await alphaOf(await cutOut(product, 'portrait'));
    expect(meanIn(portrait, 180, 60, 240, 300)).toBeLessThanOrEqual(meanIn(general, 180, 60, 240, 300));
  }, 120_000);

  it('the astronaut backdrop is not plain, so general is the person mask alone there', async () => {
    const { data, info } = await sharp(ASTRONAUT).raw().toBuffer({ resolveWithObject: true });
    expect(plainBorderShare({ data, width: info.width, height: info.height, channels: 3 })).toBeLessThan(PLAIN_BORDER_SHARE);
  });
});
