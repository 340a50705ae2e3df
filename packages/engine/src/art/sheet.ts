/**
 * A contact sheet of one photo in every AI Art style (and, given a mask or a
 * segmenter, every character), for reviews and the engine's evidence sheet.
 */
import sharp from 'sharp';
import type { Raster } from '../image/raster';
import { applyAiArt, type PersonSegmenter } from './apply';
import type { ArtMask } from './character';
import { AI_ART_CHARACTERS, AI_ART_STYLES } from './tokens';

/** Options of {@link renderArtSheet}. */
export interface ArtSheetOptions {
  /** Long side of each tile, pixels. Default 400. */
  tile?: number;
  /** Tiles per row. Default 3 (original + 8 styles = a 3 × 3 sheet). */
  columns?: number;
  /** Tokens to render. Default: the eight styles. Characters need `mask` or `segment`. */
  tokens?: readonly string[];
  /** Print each token's name under its tile. Default true (needs a system font; harmless without). */
  labels?: boolean;
  mask?: ArtMask;
  segment?: PersonSegmenter;
}

/** The eight styles, then the eight characters: every token, in documentation order. */
export const ALL_ART_TOKENS: readonly string[] = [...AI_ART_STYLES, ...AI_ART_CHARACTERS];

/**
 * Render `image` (RGB or RGBA pixels, or JPEG/PNG bytes) in each token, side
 * by side with the original, as one PNG. Styles are rendered at the 2k budget
 * and scaled down into their tiles.
 *
 * @returns PNG bytes.
 */
export async function renderArtSheet(image: Raster | Uint8Array, options: ArtSheetOptions = {}): Promise<Buffer> {
  const tile = options.tile ?? 400;
  const columns = options.columns ?? 3;
  const tokens = options.tokens ?? AI_ART_STYLES;
  const labels = options.labels ?? true;
  const raster = 'width' in image ? image : await decode(image);
  const label = labels ? Math.round(tile / 14) + 8 : 0;
  const cells: { pixels: Raster; name: string }[] = [{ pixels: raster, name: 'original' }];
  for (const token of tokens) {
    const art = await applyAiArt(raster, { token, ...(options.mask ? { mask: options.mask } : {}), ...(options.segment ? { segment: options.segment } : {}) });
    cells.push({ pixels: art, name: token });
  }
  const rows = Math.ceil(cells.length / columns);
  const layers = await Promise.all(
    cells.map(async ({ pixels, name }, k) => {
      const input = await sharp(pixels.data, { raw: { width: pixels.width, height: pixels.height, channels: pixels.channels } })
        .resize(tile, tile, { fit: 'contain', background: '#ffffff' })
        .flatten({ background: '#ffffff' })
        .png()
        .toBuffer();
      const left = (k % columns) * tile;
      const top = Math.floor(k / columns) * (tile + label);
      const text = labels
        ? [{ input: Buffer.from(labelSvg(name, tile, label)), left, top: top + tile }]
        : [];
      return [{ input, left, top }, ...text];
    }),
  );
  return sharp({ create: { width: columns * tile, height: rows * (tile + label), channels: 3, background: '#ffffff' } })
    .composite(layers.flat())
    .png()
    .toBuffer();
}

async function decode(bytes: Uint8Array): Promise<Raster> {
  const { data, info } = await sharp(bytes).autoOrient().removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: 3 };
}

function labelSvg(text: string, w: number, h: number): string {
  const safe = text.replace(/[<>&"]/g, '');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><text x="${w / 2}" y="${h * 0.7}" font-family="DejaVu Sans, sans-serif" font-size="${Math.round(h * 0.6)}" text-anchor="middle" fill="#222">${safe}</text></svg>`;
}
