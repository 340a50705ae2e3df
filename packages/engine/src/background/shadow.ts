/**
 * Synthetic shadows under a cut-out subject (`bgShadow`): `soft` (diffused,
 * close behind), `hard` (sharp-edged, further offset, like a spotlight) and
 * `floating` (a blurred ellipse some way below the subject, as if it hovered).
 */
import sharp from 'sharp';

/** A one-channel 8-bit plane (255 = subject / full shadow). */
export interface Plane8 {
  data: Uint8Array;
  width: number;
  height: number;
}

export type ShadowKind = 'soft' | 'hard' | 'floating';

/** Strength of each kind's shadow at its darkest (fraction of the light removed). */
export const SHADOW_OPACITY: Readonly<Record<ShadowKind, number>> = { soft: 0.45, hard: 0.6, floating: 0.5 };

/** Bounding box of the mask's confident subject (> 50 %), or undefined when empty. */
export function subjectBox(mask: Plane8): { left: number; top: number; right: number; bottom: number } | undefined {
  const { data, width: w, height: h } = mask;
  let left = w;
  let right = -1;
  let top = h;
  let bottom = -1;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (data[y * w + x]! > 127) {
        if (x < left) left = x;
        if (x > right) right = x;
        if (y < top) top = y;
        if (y > bottom) bottom = y;
      }
    }
  }
  return right < 0 ? undefined : { left, top, right, bottom };
}

/**
 * The shadow's coverage (0..255) for a subject mask, the mask's size.
 * Offsets and blur scale with the image's short side.
 */
export async function shadowPlane(mask: Plane8, kind: ShadowKind): Promise<Plane8> {
  const { width: w, height: h } = mask;
  const u = Math.min(w, h);
  if (kind === 'floating') return floatingShadow(mask, u);
  const [dx, dy, sigma] = kind === 'soft' ? [0.012 * u, 0.02 * u, 0.03 * u] : [0.035 * u, 0.03 * u, 0.003 * u];
  return shiftBlur(mask, Math.round(dx), Math.round(dy), Math.max(0.3, sigma));
}

async function shiftBlur(mask: Plane8, dx: number, dy: number, sigma: number): Promise<Plane8> {
  const { width: w, height: h } = mask;
  // The shift in JS: sharp runs extend after extract whatever the call order.
  const shifted = new Uint8Array(w * h);
  for (let y = Math.max(0, dy); y < Math.min(h, h + dy); y++) {
    const from = (y - dy) * w;
    const to = y * w;
    for (let x = Math.max(0, dx); x < Math.min(w, w + dx); x++) shifted[to + x] = mask.data[from + x - dx]!;
  }
  const data = await sharp(Buffer.from(shifted.buffer), { raw: { width: w, height: h, channels: 1 } }).blur(sigma).extractChannel(0).raw().toBuffer();
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: w, height: h };
}

async function floatingShadow(mask: Plane8, u: number): Promise<Plane8> {
  const { width: w, height: h } = mask;
  const box = subjectBox(mask);
  if (!box) return { data: new Uint8Array(w * h), width: w, height: h };
  const bw = box.right - box.left + 1;
  const bh = box.bottom - box.top + 1;
  const rx = Math.max(4, bw * 0.42);
  const ry = Math.max(2, Math.min(bh * 0.06, u * 0.05));
  // A gap below the subject's lowest point; a subject cut by the bottom edge keeps its shadow in view.
  const cy = Math.min(h - ry * 0.6, box.bottom + ry * 2.2);
  const cx = (box.left + box.right) / 2;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><defs><filter id="b"><feGaussianBlur stdDeviation="${(ry * 0.45).toFixed(1)}"/></filter></defs><rect width="${w}" height="${h}" fill="#000"/><ellipse cx="${cx.toFixed(1)}" cy="${cy.toFixed(1)}" rx="${rx.toFixed(1)}" ry="${ry.toFixed(1)}" fill="#fff" filter="url(#b)"/></svg>`;
  const data = await sharp(Buffer.from(svg)).extractChannel(0).raw().toBuffer();
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: w, height: h };
}
