import { describe, expect, it } from 'vitest';
import { planCorrection } from '../src/colour/plan';
import { estimateIlluminant } from '../src/colour/illuminant';
import { correctRaster } from '../src/colour/correct';
import { pointSample, thumbnailRaster, type Raster } from '../src/image/raster';
import { blackRemover } from '../src/colour/apply';
import { BLACK_ALLOWANCE, blackRemoving } from '../src/colour/levels';
import { AUTO, corrected, moved, toEnc as enc, toLin as lin } from './colour-helpers';

const W = 120;
const H = 80;

/** A scene from `pixel(x, y)` giving linear RGB, then `map` applied to each linear channel value. */
function scene(pixel: (x: number, y: number) => [number, number, number], map: (l: number, c: number) => number = (l) => l): Raster {
  const data = new Uint8Array(W * H * 3);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const p = pixel(x, y);
      for (let c = 0; c < 3; c++) data[(y * W + x) * 3 + c] = Math.round(enc(map(p[c]!, c)) * 255);
    }
  }
  return { data, width: W, height: H, channels: 3 };
}

/** A full-range, near-neutral photo: a smooth grey ramp (black to white) with muted colour patches. */
const ordinary = (x: number, y: number): [number, number, number] => {
  const l = lin(x / (W - 1));
  const t = ((Math.floor(x / 10) + Math.floor(y / 10)) % 5) - 2;
  return [l * (1 + 0.05 * t), l, l * (1 - 0.05 * t)];
};


/** The brightest channel of each pixel (its minimum over the image: how dark the darkest pixel is). */
const brightestChannels = (img: Raster): number[] => Array.from({ length: img.width * img.height }, (_, i) => Math.max(img.data[3 * i]!, img.data[3 * i + 1]!, img.data[3 * i + 2]!));

/** The columns of the darkest tenth of the ramp of {@link ordinary}. */
function darkTenth(img: Raster): Raster {
  const w = Math.ceil(img.width / 10);
  const data = new Uint8Array(w * img.height * 3);
  for (let y = 0; y < img.height; y++) data.set(img.data.subarray(y * img.width * 3, (y * img.width + w) * 3), y * w * 3);
  return { data, width: w, height: img.height, channels: 3 };
}

describe('planCorrection: corrections only as far as something is clearly wrong', () => {
  it('leaves a neutral, full-range photo as it is', () => {
    const img = scene(ordinary);
    const { plan } = planCorrection(img, AUTO);
    expect(plan.black).toBe(0);
    expect(plan.white).toBeCloseTo(1, 3);
    expect(plan.exposure).toBeCloseTo(1, 3);
    plan.gains.forEach((g) => expect(g).toBeCloseTo(1, 2));
    expect(moved(img, corrected(img))).toBeLessThan(0.5);
  });

  it('keeps the exposure of a high-key scene: bright and partly blown is not over-exposed', () => {
    // Snow under a white sky: a third of the frame blown, the rest bright, a few dark details.
    const snow = scene((x, y) => {
      if (y < H / 3) return [1, 1, 1];
      const l = x % 17 === 0 && y % 9 === 0 ? 0.02 : 0.45 + 0.4 * ((x * 7 + y * 3) % 50) / 50;
      return [l, l, l];
    });
    const { plan, diagnostics } = planCorrection(snow, AUTO);
    expect(diagnostics.clipped).toBeGreaterThan(0.3);
    expect(diagnostics.key).toBeGreaterThan(0.7);
    expect(plan.exposure).toBeCloseTo(1, 3);
    // Only the dark details' black (code ~38, above the levels' soft blacks) is taken to black.
    expect(moved(snow, corrected(snow))).toBeLessThan(1);
  });

  it('does not stretch a night photo whose own highlights are a few small stars', () => {
    // A dark sky (codes ~10–60) with stars: 0.1 % of the pixels near white.
    const night = scene((x, y) => {
      if ((x * 31 + y * 17) % 997 === 0) return [0.9, 0.92, 0.95];
      const l = lin(0.04 + (0.2 * y) / H);
      return [l, l, l * 1.1];
    });
    const { plan } = planCorrection(night, AUTO);
    expect(plan.white).toBeGreaterThan(0.97);
    expect(plan.exposure).toBeLessThan(1.05);
    expect(moved(night, corrected(night))).toBeLessThan(2);
  });

  it('stretches an under-exposed photo in full, a dim one whose whites are nearly there hardly', () => {
    const clean = scene(ordinary);
    const under = scene(ordinary, (l) => 0.25 * l); // −2 EV: whites at code ~137
    expect(moved(clean, corrected(under))).toBeLessThan(moved(clean, under) / 4);
    const dim = scene(ordinary, (l) => 0.75 * l); // whites at code ~225: the photo's own
    expect(planCorrection(dim, AUTO).plan.white).toBeGreaterThan(0.97);
  });

  it('leaves the white end of a dim photo at 0.86 as it is, and still stretches −1 EV in full', () => {
    // Whites at code ~222 (brightest channel 0.73 in linear light): a dim or low-key photo's own
    // end, which the stretch used to lift part of the way (the ramp began at 0.9).
    const dim = planCorrection(scene(ordinary, (l) => 0.66 * l), AUTO).plan;
    expect(dim.white).toBeCloseTo(1, 3);
    expect(dim.exposure).toBeCloseTo(1, 3);
    // −1 EV: whites at code ~188 (0.74), stretched in full (here up to the median limit).
    expect(planCorrection(scene(ordinary, (l) => 0.5 * l), AUTO).plan.white).toBeLessThan(0.85);
  });

  it('removes veiling haze in linear light, restoring the midtones and the shadows down to black', () => {
    // Haze adds light: linear 0.7·x + 0.3·0.7 (the bench's haze 30 %), whites stay near white.
    const clean = scene(ordinary);
    const hazy = scene(ordinary, (l) => 0.7 * l + 0.21);
    const { plan } = planCorrection(hazy, AUTO);
    expect(plan.blackLinear).toBeGreaterThan(0.7);
    const fixed = corrected(hazy);
    expect(moved(clean, fixed)).toBeLessThan(moved(clean, hazy) / 4);
    // The veil's black (code ~126) comes back near black, not to a grey fog over the shadows
    // (code ~29 when the black was removed as v^2.4, or kept 2/255 above the veil in that domain);
    // the veil squeezed the darkest tenth of the ramp into a few codes, which come back as steps.
    expect(Math.min(...brightestChannels(fixed))).toBeLessThan(16);
    expect(moved(darkTenth(clean), darkTenth(fixed))).toBeLessThan(16);
  });

  it('takes a black read as lifted in full to the allowance, whichever domain it is removed in', () => {
    for (const linear of [0, 0.4, 0.8, 1]) {
      for (const lo of [0.1, 0.3, 0.5]) expect(blackRemover(blackRemoving(lo, 1, linear), linear)(lo)).toBeCloseTo(BLACK_ALLOWANCE, 4);
    }
  });

  it('barely moves a misty photo whose soft blacks sit under full whites', () => {
    // Mist: nothing darker than code ~31, but the brightest parts reach white.
    const misty = scene((x, y) => {
      const l = lin(0.12 + (0.88 * x) / (W - 1));
      return [l, l * 1.01, l * 1.02 + 0.001 * (y % 3)];
    });
    expect(moved(misty, corrected(misty))).toBeLessThan(1.5);
  });

  it('removes a veil over clipped whites on encoded values, bringing the over-exposed midtones down', () => {
    // The bench's washed-out copy: +0.5 EV (the top seventh of the ramp clips) under a veil of 0.05.
    const clean = scene(ordinary);
    const washed = scene(ordinary, (l) => 0.05 + 0.95 * Math.min(1, 1.4 * l));
    const { plan } = planCorrection(washed, AUTO);
    expect(plan.blackLinear).toBeLessThan(0.15);
    const fixed = corrected(washed);
    expect(moved(clean, fixed)).toBeLessThan(moved(clean, washed) / 2);
    // The same veil without the clipping is haze: still removed in linear light.
    expect(planCorrection(scene(ordinary, (l) => 0.05 + 0.95 * l), AUTO).plan.blackLinear).toBeGreaterThan(0.7);
  });

  it('does not take a warm cast clipping the red channel of a hazy photo for clipped whites', () => {
    // Haze, then tungsten gains: the top fifth of the red channel clips, which the white balance takes down.
    const warm = [1.3, 1, 0.65];
    const { plan } = planCorrection(scene(ordinary, (l, c) => (0.85 * l + 0.1) * warm[c]!), AUTO);
    expect(plan.gains[0]).toBeLessThan(0.9);
    expect(plan.blackLinear).toBeGreaterThan(0.7);
  });

  it('keeps the linear removal for a bright scene lit to white whose black is a few specks', () => {
    // Pale paper with a few dark fibres (0.4 % at code ~77), a tenth of the frame at white.
    const paper = scene((x, y) => {
      if ((x * 31 + y * 17) % 250 === 0) return [lin(0.3), lin(0.3), lin(0.3)];
      const l = x > W * 0.9 ? 1 : lin(0.5 + (0.45 * ((x * 7 + y * 13) % 40)) / 40);
      return [l, l, l];
    });
    expect(planCorrection(paper, AUTO).plan.blackLinear).toBeGreaterThan(0.7);
  });

  it('restores a flattened curve (both ends pulled in on encoded values)', () => {
    const clean = scene(ordinary);
    const flat = scene(ordinary, (l) => lin(0.2 + 0.6 * enc(l)));
    const { plan } = planCorrection(flat, AUTO);
    expect(plan.blackLinear).toBeLessThan(0.15);
    expect(moved(clean, corrected(flat))).toBeLessThan(moved(clean, flat) / 4);
  });

  /** A grey, high-key scene whose own tones run from black to encoded 0.7 only (a pier in fog). */
  const greyPier = (x: number): [number, number, number] => {
    const l = lin((0.7 * x) / (W - 1));
    return [l, l, l * 1.02];
  };
  /** Contrast halved on encoded values, pivoting on mid-grey (as the bench's `contrast -50%`). */
  const halved = (l: number) => lin(0.25 + 0.5 * enc(l));

  it('restores a flattened photo whose own white end was short to that white end, not to white', () => {
    const clean = scene(greyPier);
    const flat = scene(greyPier, halved);
    const fixed = corrected(flat);
    // The lifted black (0.25) says the curve pulled the white in from 1 to 0.75:
    // a white end at 0.6 was the photo's own 0.7, which comes back, not white.
    let top = 0;
    for (const v of fixed.data) top = Math.max(top, v);
    expect(top / 255).toBeGreaterThan(0.64);
    expect(top / 255).toBeLessThan(0.76);
    expect(moved(clean, fixed)).toBeLessThan(moved(clean, flat) / 4);
  });

  it('does not lift a flattened dark scene as if it were under-exposed', () => {
    // A dim scene (tones from black to 0.5): its flattened copy has a dark key and
    // short whites, but a lifted black: a flattened curve, not under-exposure.
    const dim = (x: number): [number, number, number] => {
      const l = lin((0.5 * x) / (W - 1));
      return [l, l, l];
    };
    const flat = scene(dim, halved);
    const { plan } = planCorrection(flat, AUTO);
    expect(plan.exposure).toBeCloseTo(1, 3);
    expect(moved(scene(dim), corrected(flat))).toBeLessThan(moved(scene(dim), flat) / 4);
  });
});

/** Median encoded luma (0..1) of a raster. */
function medianLuma(img: Raster): number {
  const h = new Uint32Array(256);
  const d = img.data;
  for (let i = 0; i < d.length; i += 3) h[Math.round(0.2126 * d[i]! + 0.7152 * d[i + 1]! + 0.0722 * d[i + 2]!)]!++;
  let acc = 0;
  for (let v = 0; v < 256; v++) if ((acc += h[v]!) >= d.length / 6) return v / 255;
  return 1;
}

describe('planLevels: white surfaces rendered grey are under-exposure, not a soft scene', () => {
  /**
   * A bright-key photo (median ~0.66 encoded) with a true black (dark details) and a
   * surface at the top of the frame: white, or of a saturated colour as bright.
   */
  const brightKey = (top: [number, number, number], mid = 0.25) => (x: number, y: number): [number, number, number] => {
    if (y < H / 8) return top;
    if (x % 13 === 0 && y % 7 === 0) return [0.004, 0.004, 0.004];
    const l = mid + 0.25 * (((x * 7 + y * 3) % 50) / 50);
    return [l, l, l * 1.02];
  };
  const underOne = (l: number) => 0.5 * l; // −1 EV: white at 0.735 encoded

  it('stretches a −1 EV copy whose brightest surface is white past the soft-scene median limit', () => {
    const clean = scene(brightKey([1, 1, 1]));
    const under = scene(brightKey([1, 1, 1]), underOne);
    const fixed = corrected(under);
    // The median comes back to the original's (0.66), not to the old limit of 0.5.
    expect(medianLuma(clean)).toBeGreaterThan(0.62);
    expect(Math.abs(medianLuma(fixed) - medianLuma(clean))).toBeLessThan(0.04);
    expect(moved(clean, fixed)).toBeLessThan(moved(clean, under) / 4);
  });

  it('keeps the limit when the brightest surface is coloured: no white to reach', () => {
    const under = scene(brightKey([1, 0.3, 0.08]), underOne);
    expect(medianLuma(corrected(under))).toBeLessThan(0.53);
  });

  it('keeps the limit for a soft scene whose midtones crowd a neutral white end', () => {
    // Fog with a few dark details: median 0.62 under a white end of 0.735 (ratio 0.85).
    const fog = scene(brightKey([0.5, 0.5, 0.51], 0.27), (l) => Math.min(l, 0.5));
    expect(medianLuma(fog) / 0.735).toBeGreaterThan(0.82);
    expect(planCorrection(fog, AUTO).plan.white).toBeGreaterThan(0.97);
  });
});

describe('estimateIlluminant: green and magenta are bounded as a light source can make them', () => {
  /** A meadow: every surface green to a similar degree, with pale green-lit highlights. */
  const meadow = (x: number, y: number): [number, number, number] => {
    const l = 0.05 + 0.5 * (((x * 13 + y * 7) % 40) / 40);
    const k = 1 + 0.15 * (((x >> 3) + (y >> 3)) % 3);
    return [l * 0.36 * k, l, l * 0.3 * k];
  };

  it('does not neutralise a frame of grass whose every estimate leans green', () => {
    const ev = estimateIlluminant(scene(meadow));
    // Every estimate agrees on a strong green ...
    for (const c of [ev.greyWorld, ev.shadesOfGrey, ev.greyEdge, ev.whitePatch!]) expect(c.v).toBeGreaterThan(0.7);
    // ... which no real light source makes: little of it is removed.
    expect(Math.abs(ev.consensus.v)).toBeLessThan(0.15);
  });

  /** Grey cards of many levels with a slight warm or cool tint each (patches 8 px). */
  const cards = (x: number, y: number): [number, number, number] => {
    const i = (y >> 3) * 15 + (x >> 3);
    const l = 0.05 + ((i * 37) % 60) / 100;
    const t = (i % 7) - 3;
    return [l * (1 + 0.04 * t), l, l * (1 - 0.04 * t)];
  };

  it('still removes a fluorescent green cast from grey cards', () => {
    expect(Math.abs(estimateIlluminant(scene(cards)).consensus.v)).toBeLessThan(0.02);
    const ev = estimateIlluminant(scene(cards, (l, c) => l * [0.85, 1.15, 0.85][c]!));
    // ln 1.15 − ln 0.85 = 0.30; the dead zone keeps a little.
    expect(ev.consensus.v).toBeGreaterThan(0.15);
  });
});

describe('the levels read the photo’s own ends, not the resampled analysis copy’s', () => {
  /**
   * 520 × 360 px (the bench's size: reduced 1.3× to the analysis copy, by lanczos3 alone): sharp-edged
   * white bands (a fifth of the frame) on a dark ramp, at −1 EV: whites at code ~188.
   */
  const stripes = (): Raster => {
    const [w, h] = [520, 360];
    const data = new Uint8Array(w * h * 3);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const l = x % 52 < 10 ? 0.97 + 0.03 * ((x + y) % 2) : lin(0.05 + (0.6 * y) / h);
        data.fill(Math.round(enc(0.5 * l) * 255), (y * w + x) * 3, (y * w + x) * 3 + 3);
      }
    }
    return { data, width: w, height: h, channels: 3 };
  };

  it('a point sample holds only values of the image, where the analysis copy rings past them', async () => {
    const img = stripes();
    const top = (r: Raster) => r.data.reduce((m, v) => Math.max(m, v), 0);
    expect(top(await thumbnailRaster(img, 400))).toBeGreaterThan(top(img) + 4);
    expect(top(pointSample(img, 400))).toBe(top(img));
  });

  it('stretches a −1 EV photo from where its whites are, to white', async () => {
    const { plan } = await correctRaster(stripes(), AUTO);
    // Read on the ringing copy the white end would be code ~200, and short of the full stretch.
    expect(plan!.white).toBeLessThan(0.75);
  });
});
