/** A labelled contact sheet: one row of equally sized tiles per case. */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';

const escape = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** Write `rows` ({ label, tiles: PNG buffers }) under a `header` row of column names to `file`. */
export async function writeSheet(rows, header, file, tile = 220) {
  const label = 22;
  const cols = Math.max(header.length, ...rows.map((r) => r.tiles.length));
  const width = cols * tile;
  const height = label + rows.length * (tile + label);
  const text = (s, w) =>
    Buffer.from(`<svg width="${w}" height="${label}"><rect width="100%" height="100%" fill="white"/><text x="4" y="16" font-family="sans-serif" font-size="13">${escape(s)}</text></svg>`);
  const layers = header.map((h, i) => ({ input: text(h, tile), left: i * tile, top: 0 }));
  for (const [r, row] of rows.entries()) {
    const top = label + r * (tile + label);
    layers.push({ input: text(row.label, width), left: 0, top });
    for (const [c, png] of row.tiles.entries()) {
      layers.push({ input: await sharp(png).resize(tile, tile, { fit: 'contain', background: '#ffffff' }).png().toBuffer(), left: c * tile, top: top + label });
    }
  }
  mkdirSync(path.dirname(file), { recursive: true });
  const sheet = sharp({ create: { width, height, channels: 3, background: '#ffffff' } }).composite(layers);
  // The file's extension picks the format: a JPEG sheet is a tenth of the PNG's size.
  await (/\.jpe?g$/i.test(file) ? sheet.jpeg({ quality: 82, progressive: true }) : sheet.png()).toFile(file);
  console.log(`contact sheet written to ${path.relative(process.cwd(), file)}`);
}
