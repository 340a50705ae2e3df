/**
 * Glasses glare (`removeGlares`): specular highlights on spectacle lenses
 * around the detected eyes, found and filled from their surroundings. The
 * eyes' own catch-lights (on the iris) are not glare and are left alone.
 */
import type { FaceRecord } from '@pfc/core';
import type { Raster } from '../image/raster';
import { blendBack, clipBox, cropPlanes, fillFrom, lumaPlane, smooth, smoothstep, type Box } from './planes';

/** A face as the glare tools need it: eye centres in the image's pixels. */
export type EyeFace = Pick<FaceRecord, 'leftEye' | 'rightEye'>;

/** Glare of one face: its lens box and a soft glare mask (0..1) over it. */
interface FaceGlare {
  box: Box;
  mask: Float32Array;
  pixels: number;
}

/** Result of {@link findGlare}. */
export interface GlareFinding {
  /** Whether glare was found on any face (the job's `removeGlaresCount`). */
  found: boolean;
  /** Glare pixels (mask > 0.5) over all faces. */
  pixels: number;
  faces: FaceGlare[];
}

/** Fraction of a face's lens area that must be glare before it counts as found. */
const FOUND_FRACTION = 0.0015;

/** Look for glare on the glasses of each face with eye positions. */
export function findGlare(img: Raster, faces: readonly EyeFace[]): GlareFinding {
  const out: FaceGlare[] = [];
  let total = 0;
  let found = false;
  for (const f of faces) {
    const d = Math.hypot(f.rightEye.x - f.leftEye.x, f.rightEye.y - f.leftEye.y);
    if (!(d > 4)) continue;
    const cx = (f.leftEye.x + f.rightEye.x) / 2;
    const cy = (f.leftEye.y + f.rightEye.y) / 2;
    const box = clipBox(img, cx - 1.15 * d, cy - 0.55 * d, 2.3 * d, 1.15 * d);
    if (box.w < 4 || box.h < 4) continue;
    const planes = cropPlanes(img, box);
    const luma = lumaPlane(planes);
    const local = smooth(luma, box.w, box.h, 0.08 * d);
    const mask = new Float32Array(box.w * box.h);
    let pixels = 0;
    let lensArea = 0;
    for (let y = 0; y < box.h; y++) {
      for (let x = 0; x < box.w; x++) {
        const px = box.x + x;
        const py = box.y + y;
        if (!onLens(px, py, f, d)) continue;
        lensArea++;
        const j = y * box.w + x;
        const max = Math.max(planes[0][j]!, planes[1][j]!, planes[2][j]!);
        const sat = max > 0 ? (max - Math.min(planes[0][j]!, planes[1][j]!, planes[2][j]!)) / max : 0;
        // Specular: near white, well above the lens around it.
        const g = smoothstep(25, 50, luma[j]! - local[j]!) * smoothstep(200, 230, luma[j]!) * (1 - smoothstep(0.08, 0.16, sat));
        mask[j] = g;
        if (g > 0.5) pixels++;
      }
    }
    total += pixels;
    if (pixels >= Math.max(4, FOUND_FRACTION * lensArea)) found = true;
    out.push({ box, mask, pixels });
  }
  return { found, pixels: total, faces: out };
}

/** On a lens (ellipse around an eye) but off the iris, whose catch-light is natural. */
function onLens(x: number, y: number, f: EyeFace, d: number): boolean {
  for (const e of [f.leftEye, f.rightEye]) {
    const dx = x - e.x;
    const dy = y - e.y;
    if ((dx / (0.55 * d)) ** 2 + (dy / (0.42 * d)) ** 2 <= 1 && Math.hypot(dx, dy) > 0.13 * d) return true;
  }
  return false;
}

/**
 * Reduce glare: each glare spot (slightly grown) is filled from the lens
 * around it. Returns a copy, and whether glare was found; without glare the
 * input raster itself comes back.
 */
export function removeGlare(img: Raster, faces: readonly EyeFace[]): { raster: Raster; found: boolean } {
  const finding = findGlare(img, faces);
  if (!finding.found) return { raster: img, found: false };
  const out: Raster = { ...img, data: Uint8Array.from(img.data) };
  for (const g of finding.faces) {
    if (g.pixels === 0) continue;
    const { box } = g;
    // Grow the spots a little so their soft rims go too.
    const grown = smooth(g.mask, box.w, box.h, 1.5);
    const alpha = new Float32Array(grown.length);
    const keep = new Float32Array(grown.length);
    for (let i = 0; i < grown.length; i++) {
      alpha[i] = Math.min(1, Math.max(g.mask[i]!, grown[i]! * 2.5));
      keep[i] = alpha[i]! < 0.05 ? 1 : 0;
    }
    const planes = cropPlanes(out, box);
    const radius = Math.max(2, box.w * 0.03);
    const filled = planes.map((p) => fillFrom(p, keep, box.w, box.h, radius)) as [Float32Array, Float32Array, Float32Array];
    blendBack(out, box, filled, alpha);
  }
  return { raster: out, found: true };
}
