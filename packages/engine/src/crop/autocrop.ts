/**
 * Head-centred auto crop for single-person portraits: a pure function of the
 * image size, the crop parameters and the detected faces. The emulator's Web
 * API uses it for `autocrop`. Beyond the plain head-and-shoulders box (type 0,
 * faces without eye positions) it adds:
 *
 * - `autocropType` (the Web API documents only its values 0–4, "copied from
 *   the desktop editing tool"; this is the engine's reading of them):
 *   | type | framing | default `autocropSize` | default aspect | default `autocropTopHeadGap` |
 *   |---|---|---|---|---|
 *   | 0 | head and shoulders | 0.35 | the input's | off |
 *   | 1 | close-up | 0.6 | the input's | 0.05 (a close-up framed by the 0.4 rule would cut the hair) |
 *   | 2 | ID / passport | 0.5 | 35:45 | 0.1 |
 *   | 3 | half length | 0.2 | the input's | off |
 *   | 4 | no face framing: the largest centred box of the aspect | – | the input's | – |
 *   Parameters that are sent always win over these defaults.
 * - the eyes: with real eye positions (inside the face box), the horizontal
 *   centre is the midpoint of the eyes (better than the box on turned heads)
 *   and `autocropTopHeadGap` is measured from the estimated crown, not from
 *   the face box's top (which is at the brows: hair would be cut).
 */
import type { CropBox, Dimensions, FaceRecord, PfcParams } from '@pfc/core';

/** The auto-crop parameters of a Web API job (decimal strings, as sent). */
export type AutoCropParams = Pick<PfcParams, 'autocropSize' | 'autocropX' | 'autocropY' | 'cropARW' | 'cropARH' | 'autocropTopHeadGap' | 'autocropType'>;

interface TypeDefaults {
  size: number;
  aspect?: number;
  gap?: number;
  frame: boolean;
}

/** Defaults per `autocropType` (see the table above). */
export const AUTOCROP_TYPES: Readonly<Record<number, TypeDefaults>> = {
  0: { size: 0.35, frame: true },
  1: { size: 0.6, gap: 0.05, frame: true },
  2: { size: 0.5, aspect: 35 / 45, gap: 0.1, frame: true },
  3: { size: 0.2, frame: true },
  4: { size: 0.35, frame: false },
};

const num = (s: string | undefined): number => (s === undefined || s.trim() === '' ? NaN : Number(s));

function eyesOf(face: FaceRecord): { x: number; y: number } | undefined {
  const inside = (p: { x: number; y: number }) =>
    p.x > face.left && p.x < face.left + face.width && p.y > face.top && p.y < face.top + face.height;
  if (!inside(face.leftEye) || !inside(face.rightEye)) return undefined;
  return { x: (face.leftEye.x + face.rightEye.x) / 2, y: (face.leftEye.y + face.rightEye.y) / 2 };
}

/**
 * Estimated top of the head (crown), in pixels: the eyes sit about half-way
 * between crown and chin, and the face box's bottom is the chin. Without eye
 * positions: the face box's top.
 */
export function headTop(face: FaceRecord): number {
  const eyes = eyesOf(face);
  if (!eyes) return face.top;
  const chin = face.top + face.height;
  return Math.min(face.top, 2 * eyes.y - chin);
}

/**
 * The auto-crop box in the image's pixels (integers, inside the image).
 * The largest face (by box area) is framed: its height is `autocropSize` of
 * the box height, its centre at `0.5 + autocropX` of the width and
 * `0.4 + autocropY` of the height, or the crown `autocropTopHeadGap` (a
 * fraction of the box height) below the top when that is positive. The box
 * is then shrunk and shifted to fit the image. Without a face, or with type
 * 4, the largest centred box of the aspect.
 */
export function autoCropBox(src: Dimensions, p: AutoCropParams, faces: readonly FaceRecord[] = []): CropBox {
  const type = AUTOCROP_TYPES[p.autocropType ?? 0] ?? AUTOCROP_TYPES[0]!;
  const arw = num(p.cropARW);
  const arh = num(p.cropARH);
  const aspect = arw > 0 && arh > 0 ? arw / arh : (type.aspect ?? src.width / src.height);
  let fitW = src.width;
  let fitH = src.width / aspect;
  if (fitH > src.height) {
    fitH = src.height;
    fitW = src.height * aspect;
  }
  const face = type.frame ? [...faces].sort((a, b) => b.width * b.height - a.width * a.height)[0] : undefined;
  if (!face) {
    const width = Math.max(1, Math.floor(fitW));
    const height = Math.max(1, Math.floor(fitH));
    return { x: Math.floor((src.width - width) / 2), y: Math.floor((src.height - height) / 2), width, height };
  }
  const sent = num(p.autocropSize);
  const size = sent > 0 ? sent : type.size;
  let h = Math.min(fitH, face.height / size);
  let w = h * aspect;
  if (w > fitW) {
    w = fitW;
    h = w / aspect;
  }
  const eyes = eyesOf(face);
  const cx = eyes?.x ?? face.left + face.width / 2;
  const cy = face.top + face.height / 2;
  const sentGap = num(p.autocropTopHeadGap);
  const gap = Number.isNaN(sentGap) ? (type.gap ?? 0) : sentGap;
  const x = cx - (0.5 + (num(p.autocropX) || 0)) * w;
  const y = gap > 0 ? headTop(face) - gap * h : cy - (0.4 + (num(p.autocropY) || 0)) * h;
  const width = Math.max(1, Math.floor(w));
  const height = Math.max(1, Math.floor(h));
  return {
    x: Math.round(Math.min(Math.max(0, x), src.width - width)),
    y: Math.round(Math.min(Math.max(0, y), src.height - height)),
    width,
    height,
  };
}
