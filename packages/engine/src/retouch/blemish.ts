/**
 * Blemish removal (`removeBlemish`): small dark or red spots on the skin of
 * detected faces are filled from the skin around them, and fine skin texture
 * is softened a little. Only skin-coloured pixels inside the inner face
 * ellipse change, away from the eyes; features larger than a spot (brows,
 * nostrils, lips, eyes) are not spots. Without a face nothing changes.
 */
import type { FaceRecord } from '@pfc/core';
import type { Raster } from '../image/raster';
import { blendBack, clipBox, cropPlanes, fillFrom, lumaPlane, smooth, smoothstep } from './planes';

/** A face as blemish removal needs it: its box and eyes in the image's pixels. */
export type BoxFace = Pick<FaceRecord, 'left' | 'top' | 'width' | 'height'> & Partial<Pick<FaceRecord, 'leftEye' | 'rightEye'>>;

/** How much fine skin texture is softened (0..1) besides the spots. */
const SKIN_SOFTEN = 0.35;

/**
 * Remove blemishes on every face. Returns a copy and how many faces were
 * processed; without faces the input raster itself comes back.
 */
export function removeBlemishes(img: Raster, faces: readonly BoxFace[]): { raster: Raster; faces: number } {
  const usable = faces.filter((f) => f.width >= 24 && f.height >= 24);
  if (usable.length === 0) return { raster: img, faces: 0 };
  const out: Raster = { ...img, data: Uint8Array.from(img.data) };
  for (const f of usable) retouchFace(out, f);
  return { raster: out, faces: usable.length };
}

function retouchFace(out: Raster, f: BoxFace): void {
  const box = clipBox(out, f.left, f.top, f.width, f.height);
  if (box.w < 16 || box.h < 16) return;
  const planes = cropPlanes(out, box);
  const luma = lumaPlane(planes);
  const w = box.w;
  const h = box.h;
  const skin = skinMask(planes, f, box.x, box.y, w, h);

  // Band-pass on luma and redness: a spot is darker (or redder) than its
  // near surroundings (r1) while the wider area (r2) is not dark: that is a
  // feature (brow, nostril, lips), not a spot.
  const r1 = Math.max(1.5, f.width * 0.02);
  const r2 = r1 * 3;
  const near = smooth(luma, w, h, r1);
  const wide = smooth(luma, w, h, r2);
  const red = new Float32Array(w * h);
  for (let j = 0; j < red.length; j++) red[j] = planes[0][j]! - planes[1][j]!;
  const nearRed = smooth(red, w, h, r1);
  const spot = new Float32Array(w * h);
  for (let j = 0; j < spot.length; j++) {
    const small = Math.max(smoothstep(6, 16, near[j]! - luma[j]!), smoothstep(8, 20, red[j]! - nearRed[j]!));
    spot[j] = small * (1 - smoothstep(4, 10, wide[j]! - near[j]!)) * skin[j]!;
  }
  const grown = smooth(spot, w, h, r1 * 0.5);
  const keep = new Float32Array(w * h);
  for (let j = 0; j < keep.length; j++) keep[j] = skin[j]! * (1 - Math.min(1, grown[j]! * 3));
  const filled = planes.map((p) => fillFrom(p, keep, w, h, r1 * 1.5)) as [Float32Array, Float32Array, Float32Array];
  const spotAlpha = new Float32Array(w * h);
  for (let j = 0; j < spotAlpha.length; j++) spotAlpha[j] = skin[j]! * Math.min(1, Math.max(spot[j]!, grown[j]! * 2));
  blendBack(out, box, filled, spotAlpha);

  // Fine texture softening: a small blur of skin-only pixels, partly blended in.
  const after = cropPlanes(out, box);
  const soft = after.map((p) => fillFrom(p, skin, w, h, Math.max(1, f.width * 0.006))) as [Float32Array, Float32Array, Float32Array];
  const softAlpha = new Float32Array(w * h);
  for (let j = 0; j < softAlpha.length; j++) softAlpha[j] = skin[j]! * SKIN_SOFTEN;
  blendBack(out, box, soft, softAlpha);
}

/** Skin inside the inner face ellipse, away from the eyes, 0..1. */
function skinMask(planes: readonly [Float32Array, Float32Array, Float32Array], f: BoxFace, bx: number, by: number, w: number, h: number): Float32Array {
  const cx = f.left + f.width / 2;
  const cy = f.top + f.height * 0.55;
  const eyes = f.leftEye && f.rightEye && f.leftEye.x > 0 ? [f.leftEye, f.rightEye] : [];
  const eyeR = eyes.length ? Math.hypot(eyes[1]!.x - eyes[0]!.x, eyes[1]!.y - eyes[0]!.y) * 0.32 : 0;
  const m = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const px = bx + x;
      const py = by + y;
      const e = ((px - cx) / (f.width * 0.42)) ** 2 + ((py - cy) / (f.height * 0.5)) ** 2;
      let v = 1 - smoothstep(0.75, 1, e);
      for (const eye of eyes) v *= smoothstep(eyeR * 0.9, eyeR * 1.3, Math.hypot(px - eye.x, py - eye.y));
      if (v <= 0) continue;
      const j = y * w + x;
      m[j] = v * skinLikelihood(planes[0][j]!, planes[1][j]!, planes[2][j]!);
    }
  }
  return m;
}

/**
 * Skin likelihood 0..1 from the classic YCbCr skin box (Chai & Ngan 1999:
 * Cb 77–127, Cr 133–173), with soft edges and very dark or blown pixels out.
 */
export function skinLikelihood(r: number, g: number, b: number): number {
  const y = 0.299 * r + 0.587 * g + 0.114 * b;
  const cb = 128 - 0.168736 * r - 0.331264 * g + 0.5 * b;
  const cr = 128 + 0.5 * r - 0.418688 * g - 0.081312 * b;
  const inCb = smoothstep(72, 80, cb) * (1 - smoothstep(124, 132, cb));
  const inCr = smoothstep(128, 136, cr) * (1 - smoothstep(170, 178, cr));
  return inCb * inCr * smoothstep(40, 70, y) * (1 - smoothstep(245, 254, y));
}
