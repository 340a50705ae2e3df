/**
 * The WebAssembly passes of the look (`image/kernels.ts`) against plain
 * JavaScript written from their definitions, on random pixels over several
 * strips (the last one partial), RGB and RGBA; and the committed module
 * against its source, so the .wat and the bytes cannot drift apart.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { blurDetailPass, blurPlane, curvesPass } from '../src/image/kernels';
import { gaussianMask } from '../src/image/sharpen';
import { noiseBytes } from './noise';


/** Three distinct, non-monotonic tables, so a channel swapped or a table skipped shows. */
const LUTS: [Uint8Array, Uint8Array, Uint8Array] = [
  Uint8Array.from({ length: 256 }, (_, i) => (i * 7 + 3) & 255),
  Uint8Array.from({ length: 256 }, (_, i) => 255 - i),
  Uint8Array.from({ length: 256 }, (_, i) => Math.min(255, Math.round(i * 1.3))),
];
/** Chroma factors 0.5..2.5 plain, a different ramp for skin-like pixels, one exactly 1. */
const FACTORS = Float64Array.from({ length: 512 }, (_, k) => (k === 40 ? 1 : k < 256 ? 0.5 + k / 128 : 1.4 - (k - 256) / 500));
const PIXELS = 40_000; // two full strips of 16384 and a partial one

/** Index of the first element where two arrays differ, −1 when equal (cheaper than toEqual on 100 000 values). */
function firstDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return -1;
}

/** The curves pass from its definition: tables, then round(y + (c − y)·f) with y the Rec. 601 luma, in float64 as colour/apply.ts wrote it. */
function curvesReference(data: Uint8Array, ch: 3 | 4, factors: Float64Array | undefined, luts: readonly [Uint8Array, Uint8Array, Uint8Array] = LUTS): { out: Uint8Array; luma: Uint16Array } {
  const out = new Uint8Array(data.length);
  const luma = new Uint16Array(data.length / ch);
  for (let p = 0; p < luma.length; p++) {
    const i = p * ch;
    let [r, g, b] = [luts[0][data[i]!]!, luts[1][data[i + 1]!]!, luts[2][data[i + 2]!]!];
    const max = Math.max(r, g, b);
    const min = Math.min(r, g, b);
    if (factors && max !== min) {
      const f = factors[(r > g && g > b && r - b < 170 ? 256 : 0) + max - min]!;
      const y = 0.299 * r + 0.587 * g + 0.114 * b;
      [r, g, b] = [r, g, b].map((c) => Math.min(255, Math.max(0, Math.round(y + (c - y) * f)))) as [number, number, number];
    }
    out.set([r, g, b], i);
    if (ch === 4) out[i + 3] = data[i + 3]!;
    luma[p] = 77 * r + 150 * g + 29 * b;
  }
  return { out, luma };
}

describe('curvesPass (look-up tables + vibrance, WebAssembly)', () => {
  for (const ch of [3, 4] as const) {
    it(`matches its definition on ${ch}-channel pixels, with and without vibrance`, () => {
      const data = noiseBytes(PIXELS * ch, ch);
      for (const factors of [FACTORS, undefined]) {
        const luma = new Uint16Array(PIXELS);
        const out = curvesPass({ data, channels: ch }, LUTS, factors, luma);
        const ref = curvesReference(data, ch, factors);
        expect(firstDifference(out, ref.out)).toBe(-1);
        expect(firstDifference(luma, ref.luma)).toBe(-1);
      }
    });
  }

  it('matches its definition on photo-like pixels, where colours repeat, and after a call with other tables', () => {
    // 600 colours, each repeated in runs, so the pass's cache of results by colour is hit and its slots collide.
    const palette = noiseBytes(600 * 3, 99);
    const data = new Uint8Array(3 * PIXELS);
    for (let p = 0; p < PIXELS; p++) data.set(palette.subarray(3 * (Math.floor(p / 7) % 600), 3 * (Math.floor(p / 7) % 600) + 3), 3 * p);
    const other = FACTORS.map((f) => 2 - f);
    const otherLuts = [LUTS[2], LUTS[0], LUTS[1]] as const;
    expect(firstDifference(curvesPass({ data, channels: 3 }, LUTS, FACTORS), curvesReference(data, 3, FACTORS).out)).toBe(-1);
    expect(firstDifference(curvesPass({ data, channels: 3 }, LUTS, other), curvesReference(data, 3, other).out)).toBe(-1);
    const swapped = curvesPass({ data, channels: 3 }, otherLuts, other);
    expect(firstDifference(swapped, curvesReference(data, 3, other, otherLuts).out)).toBe(-1);
  });

  it('leaves its input alone and needs no luma buffer', () => {
    const data = noiseBytes(3 * 1000, 7);
    const before = new Uint8Array(data);
    const out = curvesPass({ data, channels: 3 }, LUTS, FACTORS);
    expect(firstDifference(data, before)).toBe(-1);
    expect(firstDifference(out, curvesReference(data, 3, FACTORS).out)).toBe(-1);
  });
});

describe('blurDetailPass (the mask added to R, G and B, WebAssembly)', () => {
  for (const ch of [3, 4] as const) {
    it(`adds table[((luma − blurred) >> 3) + 8192] to R, G and B of ${ch}-channel pixels, clamped, alpha kept`, () => {
      // Rows wider than a strip, an odd width, a height not a multiple of the mask's.
      const [w, h] = [16390, 3];
      const n = w * h;
      const data = noiseBytes(n * ch, 10 + ch);
      const noise = noiseBytes(2 * n, 20 + ch);
      const luma = Uint16Array.from({ length: n }, (_, p) => (noise[2 * p]! << 8) | noise[2 * p + 1]!);
      const mask = gaussianMask(2);
      // The blur itself is held to libvips' in blur.test.ts.
      const blurred = blurPlane(luma, w, h, mask);
      const table = Int16Array.from({ length: 16384 }, (_, k) => Math.round((k - 8192) / 40));
      const expected = new Uint8Array(data);
      for (let p = 0; p < n; p++) {
        const delta = table[((luma[p]! - blurred[p]!) >> 3) + 8192]!;
        for (let c = 0; c < 3; c++) expected[p * ch + c] = Math.min(255, Math.max(0, data[p * ch + c]! + delta));
      }
      blurDetailPass({ data, width: w, height: h, channels: ch }, luma, mask, table);
      expect(firstDifference(data, expected)).toBe(-1);
    });
  }
});

describe('the committed WebAssembly module', () => {
  it('is what scripts/build-kernels.mjs makes of kernels.wat', async () => {
    const script = fileURLToPath(new URL('../scripts/build-kernels.mjs', import.meta.url));
    const { kernelsModuleText } = (await import(script)) as { kernelsModuleText(): Promise<string> };
    const committed = await readFile(fileURLToPath(new URL('../src/image/kernels-wasm.ts', import.meta.url)), 'utf8');
    expect(committed).toBe(await kernelsModuleText());
  });
});
