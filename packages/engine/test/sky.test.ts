import { describe, expect, it } from 'vitest';
import type { Raster } from '../src/image/raster';
import { findSky } from '../src/colour/sky';

const W = 120;
const H = 160;

/**
 * Sandstone with an arch (the shape of gc-qutubminar): a strip of sky along
 * the top edge, and below the arch's band of stone a large opening of the
 * same, slightly paler sky, not reached from the top. `opening` gives the
 * opening's colour (encoded RGB).
 */
function arch(opening: [number, number, number]): Raster {
  const data = new Uint8Array(W * H * 3);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const o = (y * W + x) * 3;
      const inOpening = y >= 20 && x >= 30 && x < 90;
      // Stone is slightly textured so it is never smooth sky; it is warm anyway.
      const stone: [number, number, number] = [200 + ((x * 7 + y * 3) % 9), 160, 110];
      const c = y < 8 ? [110, 165, 205] : inOpening ? opening : stone;
      data.set(c, o);
    }
  }
  return { data, width: W, height: H, channels: 3 };
}

describe('findSky', () => {
  it('takes the same sky seen through an opening as sky', () => {
    const sky = findSky(arch([130, 176, 215]));
    // The top strip alone is 5 % of the frame; the opening adds 35 %.
    expect(sky.fraction).toBeGreaterThan(0.35);
    expect(sky.mask[(80 * W + 60)]).toBe(1);
  });

  it('leaves out an enclosed region only as blue as a shade cast makes a grey surface', () => {
    // A pale wall under a cool cast: sky-coloured by the pixel test, but ln R/B of only about −0.35.
    const sky = findSky(arch([170, 180, 192]));
    expect(sky.mask[(80 * W + 60)]).toBe(0);
    expect(sky.fraction).toBeLessThan(0.1);
  });
});
