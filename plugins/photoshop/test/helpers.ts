/** Shared test helpers: sample photos as raw pixels, pixel comparisons, a simulated host. */
import type { CorrectionBackend } from '@pfc/core';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { createSimHost, type LayerNode } from './sim/index';
import { nodeCodec } from './sim/node-codec';

export const SAMPLES = fileURLToPath(new URL('../../../samples/', import.meta.url));

/** A sample photo as raw 8-bit RGB (optionally resized to keep tests quick). */
export async function loadSample(relPath: string, width?: number): Promise<{ width: number; height: number; pixels: Uint8Array }> {
  let img = sharp(SAMPLES + relPath).removeAlpha();
  if (width) img = img.resize({ width });
  const { data, info } = await img.raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, pixels: new Uint8Array(data) };
}

/** Decode an encoded image with sharp to raw RGBA. */
export async function decodeWithSharp(bytes: Uint8Array): Promise<{ width: number; height: number; data: Uint8Array; format: string | undefined }> {
  const meta = await sharp(bytes).metadata();
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8Array(data), format: meta.format };
}

/** Mean absolute difference of the colour channels of two same-sized RGBA buffers (0–255). */
export function meanDiff(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) throw new Error(`sizes differ: ${a.length} vs ${b.length}`);
  let sum = 0;
  let n = 0;
  for (let i = 0; i < a.length; i += 4) {
    for (let c = 0; c < 3; c++) sum += Math.abs(a[i + c]! - b[i + c]!);
    n += 3;
  }
  return sum / n;
}

/** Byte-for-byte equality, fast on megabytes (vitest's deep equality walks typed arrays element by element). */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

/** RGB to straight RGBA (opaque). */
export function rgbToRgba(rgb: Uint8Array): Uint8Array {
  const out = new Uint8Array((rgb.length / 3) * 4);
  for (let i = 0, o = 0; i < rgb.length; i += 3, o += 4) {
    out[o] = rgb[i]!;
    out[o + 1] = rgb[i + 1]!;
    out[o + 2] = rgb[i + 2]!;
    out[o + 3] = 255;
  }
  return out;
}

/** A brightened copy: an easily recognised stand-in for a correction. */
export function brighten(rgba: Uint8Array, by = 40): Uint8Array {
  const out = rgba.slice();
  for (let i = 0; i < out.length; i++) if ((i & 3) !== 3) out[i] = Math.min(255, out[i]! + by);
  return out;
}

export function simHost() {
  return createSimHost(nodeCodec);
}

/** A pixel layer holding a copy of `pixels` (canvas-sized RGBA), shown, Normal 100 %, unless `extra` says otherwise. */
export function pixelLayer(id: number, name: string, pixels: Uint8Array, extra: Partial<LayerNode> = {}): LayerNode {
  return { id, name, kind: 'pixel', visible: true, isBackground: false, pixels: pixels.slice(), children: null, ...extra };
}

/** A group (an artboard with `extra.artboard`) holding `children`, topmost first. */
export function groupLayer(id: number, name: string, children: LayerNode[], extra: Partial<LayerNode> = {}): LayerNode {
  return { id, name, kind: 'group', visible: true, isBackground: false, pixels: null, children, ...extra };
}

/** `inner` with its `correct` replaced, e.g. by one that does what the user does while the service works. */
export function withCorrect(inner: CorrectionBackend, correct: CorrectionBackend['correct']): CorrectionBackend {
  return new Proxy(inner, {
    get: (target, key) => {
      if (key === 'correct') return correct;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
