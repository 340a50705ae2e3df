import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { greyPngAsRgb } from '../src/index';
import { greyProfile } from '../../../test/support/icc';

// Inputs sharp cannot write (1-, 2- and 4-bit grey, Adam7 at every depth,
// chosen filter types, odd chunks, corrupt data) come from the small PNG
// writer below (node:zlib deflate and CRC-32); sharp (libspng) decodes every
// input and output, so the writer is checked too.

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

/** A whole chunk: length, type, data, CRC. */
function chunk(type: string, data: Uint8Array | string = new Uint8Array(0)): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), typeof data === 'string' ? Buffer.from(data, 'latin1') : data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(body.length - 4);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

interface PngChunk {
  type: string;
  data: Buffer;
  /** The whole chunk, length to CRC, and where it starts. */
  bytes: Buffer;
  offset: number;
}

function chunksOf(png: Uint8Array): PngChunk[] {
  const b = Buffer.from(png.buffer, png.byteOffset, png.length);
  const chunks: PngChunk[] = [];
  for (let at = 8; at + 12 <= b.length; ) {
    const length = b.readUInt32BE(at);
    chunks.push({ type: b.toString('latin1', at + 4, at + 8), data: b.subarray(at + 8, at + 8 + length), bytes: b.subarray(at, at + 12 + length), offset: at });
    at += 12 + length;
  }
  return chunks;
}

/** A PNG of the signature and the chunks `change` makes of `png`'s. */
function rebuilt(png: Uint8Array, change: (chunks: PngChunk[]) => Buffer[]): Buffer {
  return Buffer.concat([SIGNATURE, ...change(chunksOf(png))]);
}

/** Its IDAT chunks replaced by one holding `data`. */
function withIdatData(png: Uint8Array, data: Buffer): Buffer {
  return rebuilt(png, (chunks) => chunks.flatMap((c, i) => (c.type !== 'IDAT' ? [c.bytes] : chunks[i - 1]?.type === 'IDAT' ? [] : [chunk('IDAT', data)])));
}

/** A tEXt chunk between its first and second IDAT. */
function withTextBetweenIdats(png: Uint8Array): Buffer {
  return rebuilt(png, (chunks) => chunks.flatMap((c, i) => (c.type === 'IDAT' && i === chunks.findIndex((d) => d.type === 'IDAT') ? [c.bytes, chunk('tEXt', 'a\0b')] : [c.bytes])));
}

function withByteFlipped(png: Uint8Array, at: number): Buffer {
  const copy = Buffer.from(png);
  copy[at]! ^= 0x01;
  return copy;
}

const typesOf = (png: Uint8Array) => chunksOf(png).map((c) => c.type);
const firstChunk = (png: Uint8Array, type: string) => chunksOf(png).find((c) => c.type === type)!;

interface GreyImage {
  width: number;
  height: number;
  depth: 1 | 2 | 4 | 8 | 16;
  alpha?: boolean;
  interlaced?: boolean;
  /** Sample `c` (0 grey, 1 alpha) of pixel x, y, below 2^depth; a hash by default. */
  sample?: (x: number, y: number, c: number) => number;
  /** Chunks after IHDR, and after the image data. */
  before?: readonly Buffer[];
  after?: readonly Buffer[];
  /** Filter type of the nth row written (all passes counted): by default all five types in turn. */
  filterOf?: (n: number) => number;
  /** Compressed bytes per IDAT (the first IDAT is followed by an empty one). */
  idatBytes?: number;
  /** Change the filtered scanlines before compression (tests of corrupt data). */
  spoil?: (scanlines: Buffer) => Buffer;
}

function hashSample(x: number, y: number, c: number): number {
  return Math.imul((x * 73856093) ^ (y * 19349663) ^ (c * 83492791), 0x9e3779b1) >>> 7;
}

/** A grey PNG written the plain way: each pass's rows packed, filtered as told, deflated. */
function greyPng(image: GreyImage): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(image.width, 0);
  ihdr.writeUInt32BE(image.height, 4);
  ihdr.set([image.depth, image.alpha ? 4 : 0, 0, 0, image.interlaced ? 1 : 0], 8);
  const scanlines = (image.spoil ?? ((s: Buffer) => s))(scanlinesOf(image));
  const compressed = deflateSync(scanlines);
  const size = image.idatBytes ?? compressed.length;
  const idats: Buffer[] = [];
  for (let at = 0; at < compressed.length; at += size) idats.push(chunk('IDAT', compressed.subarray(at, at + size)));
  if (image.idatBytes) idats.splice(1, 0, chunk('IDAT'));
  return Buffer.concat([SIGNATURE, chunk('IHDR', ihdr), ...(image.before ?? []), ...idats, ...(image.after ?? []), chunk('IEND')]);
}

function scanlinesOf(image: GreyImage): Buffer {
  const channels = image.alpha ? 2 : 1;
  const bitsPerPixel = image.depth * channels;
  const bpp = Math.max(1, bitsPerPixel / 8);
  const sample = image.sample ?? hashSample;
  const filterOf = image.filterOf ?? ((n: number) => n % 5);
  const max = 2 ** image.depth - 1;
  const rows: Uint8Array[] = [];
  let n = 0;
  for (const [x0, y0, dx, dy] of image.interlaced ? ADAM7 : [[0, 0, 1, 1] as const]) {
    const width = Math.max(0, Math.ceil((image.width - x0) / dx));
    const height = Math.max(0, Math.ceil((image.height - y0) / dy));
    if (width === 0 || height === 0) continue;
    let prior: Buffer = Buffer.alloc(Math.ceil((width * bitsPerPixel) / 8));
    for (let r = 0; r < height; r++) {
      const values = Array.from({ length: width * channels }, (_, i) => sample(x0 + Math.floor(i / channels) * dx, y0 + r * dy, i % channels) & max);
      const raw = packed(values, image.depth, prior.length);
      const type = filterOf(n++);
      rows.push(Buffer.from([type]), filtered(type, raw, prior, bpp));
      prior = raw;
    }
  }
  return Buffer.concat(rows);
}

/** Samples as a scanline: most significant bits first below 8 bits, big-endian at 16. */
function packed(values: number[], depth: number, bytes: number): Buffer {
  const row = Buffer.alloc(bytes);
  values.forEach((v, i) => {
    if (depth === 16) row.writeUInt16BE(v, 2 * i);
    else row[(i * depth) >> 3]! |= v << (8 - depth - ((i * depth) & 7));
  });
  return row;
}

function filtered(type: number, raw: Buffer, prior: Buffer, bpp: number): Uint8Array {
  return raw.map((x, i) => {
    const a = i >= bpp ? raw[i - bpp]! : 0;
    const b = prior[i]!;
    const c = i >= bpp ? prior[i - bpp]! : 0;
    const p = a + b - c;
    const paeth = Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
    return (x - ([0, a, b, (a + b) >> 1, paeth][type] ?? 0)) & 0xff;
  });
}

/** `bytes` as a stream cut into pieces of the sizes `sizes` gives, in turn. */
function streamOf(bytes: Uint8Array, sizes: () => number = () => bytes.length, onCancel?: () => void): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      const n = sizes();
      controller.enqueue(bytes.slice(at, at + n));
      at += n;
    },
    cancel: onCancel,
  });
}

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  return Buffer.from(await new Response(stream).arrayBuffer());
}

/** The transcoded PNG, read whole; undefined when refused. */
async function transcode(png: Uint8Array, sizes?: () => number): Promise<Buffer | undefined> {
  const rgb = await greyPngAsRgb(streamOf(png, sizes));
  return rgb && bytesOf(rgb);
}

interface Decoded {
  samples: Uint8Array | Uint16Array;
  channels: number;
}

/** Samples as stored: grey as `b-w`/`grey16`, colour as `srgb`/`rgb16` (no conversion either way). */
async function decoded(png: Uint8Array, space: 'b-w' | 'srgb' | 'grey16' | 'rgb16'): Promise<Decoded> {
  const sixteen = space.endsWith('16');
  const { data, info } = await sharp(png).toColourspace(space).raw(sixteen ? { depth: 'ushort' } : {}).toBuffer({ resolveWithObject: true });
  const samples = sixteen ? new Uint16Array(data.buffer, data.byteOffset, data.length / 2) : new Uint8Array(data);
  return { samples, channels: info.channels };
}

/** Grey samples as stored, then alpha (sharp drops alpha when asked for `b-w`; `grey16` keeps it). */
async function decodedGrey(png: Uint8Array, sixteen: boolean): Promise<Decoded> {
  if (sixteen) return decoded(png, 'grey16');
  const grey = await decoded(png, 'b-w');
  if (!(await sharp(png).metadata()).hasAlpha) return grey;
  const alpha = await sharp(png).extractChannel('alpha').raw().toBuffer();
  const samples = new Uint8Array(grey.samples.length * 2);
  grey.samples.forEach((v, i) => samples.set([v, alpha[i]!], 2 * i));
  return { samples, channels: 2 };
}

/** The RGB PNG decodes to the grey PNG's decoded samples, grey in R, G and B, alpha as it was, at the same depth, interlaced alike. */
async function expectSamePixels(grey: Uint8Array, rgb: Uint8Array | undefined): Promise<void> {
  expect(rgb).toBeDefined();
  const [greyMeta, rgbMeta] = await Promise.all([sharp(grey).metadata(), sharp(rgb!).metadata()]);
  expect(rgbMeta).toMatchObject({ format: 'png', width: greyMeta.width, height: greyMeta.height, depth: greyMeta.depth, isProgressive: greyMeta.isProgressive });
  const sixteen = greyMeta.depth === 'ushort';
  const [g, c] = await Promise.all([decodedGrey(grey, sixteen), decoded(rgb!, sixteen ? 'rgb16' : 'srgb')]);
  expect(c.channels).toBe(g.channels + 2);
  const expected = new (sixteen ? Uint16Array : Uint8Array)((g.samples.length / g.channels) * c.channels);
  for (let i = 0, o = 0; i < g.samples.length; i += g.channels) {
    expected.fill(g.samples[i]!, o, o + 3);
    o += 3;
    if (g.channels === 2) expected[o++] = g.samples[i + 1]!;
  }
  expect(Buffer.from(c.samples.buffer, c.samples.byteOffset, c.samples.byteLength).equals(Buffer.from(expected.buffer))).toBe(true);
}

/** A gradient with noise, so rows are neither flat nor random; deterministic. */
function photoLike(width: number, height: number, channels: number, max: number): number[] {
  let seed = 12345;
  return Array.from({ length: width * height * channels }, (_, i) => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    const x = Math.floor(i / channels) % width;
    const y = Math.floor(i / channels / width);
    return Math.min(max, Math.floor((((x + y) % 256) / 300) * max + (seed >>> 28) * (max / 255)));
  });
}

async function sharpGrey(width: number, height: number, { alpha = false, sixteen = false } = {}): Promise<Buffer> {
  const channels = alpha ? 2 : 1;
  const values = photoLike(width, height, channels, sixteen ? 65535 : 255);
  const pixels = sixteen ? Uint16Array.from(values) : Uint8Array.from(values);
  const png = await sharp(pixels, { raw: { width, height, channels } }).toColourspace(sixteen ? 'grey16' : 'b-w').png().toBuffer();
  expect([png[24], png[25]]).toEqual([sixteen ? 16 : 8, alpha ? 4 : 0]);
  return png;
}

const ihdrOf = (png: Uint8Array) => {
  const d = firstChunk(png, 'IHDR').data;
  return { width: d.readUInt32BE(0), height: d.readUInt32BE(4), depth: d[8], colourType: d[9], interlace: d[12] };
};

describe('greyPngAsRgb', () => {
  describe('keeps every pixel', () => {
    for (const [width, height] of [
      [1, 1],
      [33, 17],
      [640, 427],
    ] as const) {
      for (const options of [{}, { sixteen: true }, { alpha: true }, { alpha: true, sixteen: true }]) {
        it(`of a ${width}×${height} ${options.sixteen ? 16 : 8}-bit grey${options.alpha ? ' + alpha' : ''} PNG made by sharp`, async () => {
          const grey = await sharpGrey(width, height, options);
          const rgb = await transcode(grey);
          await expectSamePixels(grey, rgb);
          expect(ihdrOf(rgb!)).toEqual({ width, height, depth: options.sixteen ? 16 : 8, colourType: options.alpha ? 6 : 2, interlace: 0 });
        });
      }
    }

    const kinds = [
      { depth: 1 },
      { depth: 2 },
      { depth: 4 },
      { depth: 8 },
      { depth: 16 },
      { depth: 8, alpha: true },
      { depth: 16, alpha: true },
    ] as const;
    for (const kind of kinds) {
      for (const interlaced of [false, true]) {
        it(`of ${kind.depth}-bit grey${'alpha' in kind ? ' + alpha' : ''}${interlaced ? ', Adam7 interlaced' : ''}, every filter type, 1×1 to 33×17`, async () => {
          for (const [width, height] of [
            [1, 1],
            [3, 2],
            [9, 7],
            [33, 17],
          ]) {
            const grey = greyPng({ width: width!, height: height!, interlaced, ...kind });
            const rgb = await transcode(grey);
            await expectSamePixels(grey, rgb);
            expect(ihdrOf(rgb!)).toMatchObject({ depth: Math.max(8, kind.depth), interlace: interlaced ? 1 : 0 });
          }
        });
      }
    }

    it('scales 1-, 2- and 4-bit samples as decoders do: 0 → 0, the largest → 255, the rest evenly', async () => {
      for (const depth of [1, 2, 4] as const) {
        const max = 2 ** depth - 1;
        const grey = greyPng({ width: max + 1, height: 1, depth, sample: (x) => x });
        const { samples } = await decoded((await transcode(grey))!, 'srgb');
        expect([...samples].filter((_, i) => i % 3 === 0)).toEqual(Array.from({ length: max + 1 }, (_, v) => (v * 255) / max));
      }
    });

    it('of flat, ramp and patterned rows, whichever single filter type the input uses', async () => {
      for (const sample of [() => 0, (x: number) => x * 9, (x: number, y: number) => (x * y) % 251]) {
        for (const filter of [0, 1, 2, 3, 4]) {
          const grey = greyPng({ width: 21, height: 6, depth: 8, sample, filterOf: () => filter });
          await expectSamePixels(grey, await transcode(grey));
        }
      }
    });

    it('across many IDAT chunks, one of them empty', async () => {
      const grey = greyPng({ width: 40, height: 30, depth: 4, interlaced: true, idatBytes: 7 });
      expect(typesOf(grey).filter((t) => t === 'IDAT').length).toBeGreaterThan(20);
      await expectSamePixels(grey, await transcode(grey));
    });
  });

  describe('transparency and the chunks that describe samples', () => {
    it('turns a grey tRNS into the RGB tRNS of that grey: the same pixels are transparent (8-bit)', async () => {
      const grey = greyPng({ width: 33, height: 17, depth: 8, sample: (x, y) => (x + y) % 7, before: [chunk('tRNS', Buffer.from([0, 3]))] });
      const rgb = (await transcode(grey))!;
      expect(firstChunk(rgb, 'tRNS').data).toEqual(Buffer.from([0, 3, 0, 3, 0, 3]));
      await expectSamePixels(grey, rgb);
      expect((await decoded(rgb, 'srgb')).channels).toBe(4);
    });

    it('scales a sub-8-bit tRNS as the samples are (2-bit grey 2 → 170), interlaced too', async () => {
      for (const interlaced of [false, true]) {
        const grey = greyPng({ width: 9, height: 7, depth: 2, interlaced, before: [chunk('tRNS', Buffer.from([0, 2]))] });
        const rgb = (await transcode(grey))!;
        expect(firstChunk(rgb, 'tRNS').data).toEqual(Buffer.from([0, 170, 0, 170, 0, 170]));
        await expectSamePixels(grey, rgb);
      }
    });

    it('keeps a 16-bit tRNS at 16 bits', async () => {
      const grey = greyPng({ width: 9, height: 7, depth: 16, sample: (x) => (x % 3) * 0x1234, before: [chunk('tRNS', Buffer.from([0x12, 0x34]))] });
      const rgb = (await transcode(grey))!;
      expect(firstChunk(rgb, 'tRNS').data).toEqual(Buffer.from([0x12, 0x34, 0x12, 0x34, 0x12, 0x34]));
      await expectSamePixels(grey, rgb);
    });

    it('writes sBIT for each of R, G, B (then alpha) and bKGD as an RGB colour, scaled as samples', async () => {
      const grey = greyPng({ width: 5, height: 4, depth: 4, before: [chunk('sBIT', Buffer.from([3])), chunk('bKGD', Buffer.from([0, 5]))] });
      const rgb = (await transcode(grey))!;
      expect(firstChunk(rgb, 'sBIT').data).toEqual(Buffer.from([3, 3, 3]));
      expect(firstChunk(rgb, 'bKGD').data).toEqual(Buffer.from([0, 85, 0, 85, 0, 85]));
      expect((await sharp(rgb).metadata()).background).toEqual({ r: 85, g: 85, b: 85 });

      const withAlpha = greyPng({ width: 5, height: 4, depth: 16, alpha: true, before: [chunk('sBIT', Buffer.from([12, 5])), chunk('bKGD', Buffer.from([0x80, 0x01]))] });
      const rgba = (await transcode(withAlpha))!;
      expect(firstChunk(rgba, 'sBIT').data).toEqual(Buffer.from([12, 12, 12, 5]));
      expect(firstChunk(rgba, 'bKGD').data).toEqual(Buffer.from([0x80, 0x01, 0x80, 0x01, 0x80, 0x01]));
      await expectSamePixels(withAlpha, rgba);
    });

    it('refuses a tRNS, sBIT or bKGD no decoder would read as the image has it', async () => {
      const refused = [
        { depth: 8, before: [chunk('tRNS', Buffer.from([0, 3, 0]))] },
        { depth: 2, before: [chunk('tRNS', Buffer.from([0, 4]))] },
        { depth: 8, alpha: true, before: [chunk('tRNS', Buffer.from([0, 3]))] },
        { depth: 4, before: [chunk('sBIT', Buffer.from([5]))] },
        { depth: 8, alpha: true, before: [chunk('sBIT', Buffer.from([8]))] },
        { depth: 1, before: [chunk('bKGD', Buffer.from([0, 2]))] },
      ] as const;
      for (const image of refused) expect(await transcode(greyPng({ width: 3, height: 2, ...image }))).toBeUndefined();
    });
  });

  describe('metadata', () => {
    const exif = Buffer.from('MM\0*\0\0\0\x08\0\0\0\0\0\0', 'latin1');
    const before = [
      chunk('gAMA', Buffer.from([0, 0, 0xb1, 0x8f])),
      chunk('pHYs', Buffer.from([0, 0, 0x0b, 0x13, 0, 0, 0x0b, 0x13, 1])),
      chunk('tEXt', 'Title\0grey test scene'),
      chunk('iTXt', Buffer.from('Description\0\0\0en\0\0une scène grise', 'utf8')),
      chunk('eXIf', exif),
      chunk('prVt', 'safe to copy'),
      chunk('prVT', 'unsafe to copy'),
    ];
    const after = [chunk('tEXt', 'Comment\0written after the image'), chunk('laTe', 'safe, after'), chunk('laTE', 'unsafe, after')];

    it('keeps the chunks that do not depend on the colour type byte for byte, in order, before and after the image; unknown ones only when safe to copy', async () => {
      const grey = greyPng({ width: 20, height: 10, depth: 8, before, after });
      const rgb = (await transcode(grey))!;
      await expectSamePixels(grey, rgb);
      expect(typesOf(rgb)).toEqual(['IHDR', 'gAMA', 'pHYs', 'tEXt', 'iTXt', 'eXIf', 'prVt', 'IDAT', 'tEXt', 'laTe', 'IEND']);
      const kept = chunksOf(rgb).filter((c) => !['IHDR', 'IDAT', 'IEND'].includes(c.type));
      expect(kept.map((c) => c.bytes)).toEqual([...before.slice(0, 6), ...after.slice(0, 2)]);
      expect((await sharp(rgb).metadata()).exif).toEqual(exif);
    });

    it('drops what follows IEND', async () => {
      const grey = Buffer.concat([greyPng({ width: 4, height: 4, depth: 8 }), Buffer.from('trailing junk')]);
      expect(typesOf((await transcode(grey))!).at(-1)).toBe('IEND');
      expect((await transcode(grey))!.subarray(-12)).toEqual(chunk('IEND'));
    });

    it('drops, after the image, chunks that must precede it (tRNS, iCCP, acTL)', async () => {
      const grey = greyPng({ width: 4, height: 4, depth: 8, after: [chunk('tRNS', Buffer.from([0, 1])), chunk('iCCP', 'x\0\0'), chunk('acTL', Buffer.alloc(8))] });
      expect(typesOf((await transcode(grey))!)).toEqual(['IHDR', 'IDAT', 'IEND']);
    });
  });

  describe('refuses (undefined) and cancels the input', () => {
    const iccp = chunk('iCCP', Buffer.concat([Buffer.from('Gray Gamma 2.2\0\0', 'latin1'), deflateSync(greyProfile('Gray Gamma 2.2', 2.2))]));
    const refused: [string, () => Promise<Uint8Array>][] = [
      ['an RGB PNG', () => sharp(Buffer.alloc(8 * 4 * 3, 90), { raw: { width: 8, height: 4, channels: 3 } }).png().toBuffer()],
      ['a palette PNG', () => sharp(Buffer.alloc(8 * 4 * 3, 90), { raw: { width: 8, height: 4, channels: 3 } }).png({ palette: true }).toBuffer()],
      ['a grey JPEG', () => sharp(Buffer.alloc(8 * 8, 90), { raw: { width: 8, height: 8, channels: 1 } }).toColourspace('b-w').jpeg().toBuffer()],
      ['an embedded ICC profile', async () => greyPng({ width: 4, height: 4, depth: 8, before: [iccp] })],
      ['an animation (acTL)', async () => greyPng({ width: 4, height: 4, depth: 8, before: [chunk('acTL', Buffer.from([0, 0, 0, 1, 0, 0, 0, 0]))] })],
      ['a frame control chunk (fcTL)', async () => greyPng({ width: 4, height: 4, depth: 8, before: [chunk('fcTL', Buffer.alloc(26))] })],
      ['a palette in a grey PNG', async () => greyPng({ width: 4, height: 4, depth: 8, before: [chunk('PLTE', Buffer.alloc(6))] })],
      ['an unknown critical chunk', async () => greyPng({ width: 4, height: 4, depth: 8, before: [chunk('CRIt', 'must understand')] })],
      ['a second IHDR', async () => greyPng({ width: 4, height: 4, depth: 8, before: [firstChunk(greyPng({ width: 4, height: 4, depth: 8 }), 'IHDR').bytes] })],
      ['a chunk type that is not letters', async () => greyPng({ width: 4, height: 4, depth: 8, before: [chunk('t3Xt', 'x')] })],
    ];
    for (const [name, make] of refused) {
      it(name, async () => {
        let cancelled = false;
        expect(await greyPngAsRgb(streamOf(await make(), () => 16, () => (cancelled = true)))).toBeUndefined();
        expect(cancelled).toBe(true);
      });
    }

    /** A grey PNG with its IHDR fields changed (CRC recomputed). */
    const withIhdr = (fields: { depth?: number; colourType?: number; compression?: number; filter?: number; interlace?: number }) => {
      const png = greyPng({ width: 4, height: 4, depth: 8 });
      const ihdr = Buffer.from(firstChunk(png, 'IHDR').data);
      const values = [fields.depth, fields.colourType, fields.compression, fields.filter, fields.interlace];
      values.forEach((v, i) => v !== undefined && (ihdr[8 + i] = v));
      return Buffer.concat([png.subarray(0, 8), chunk('IHDR', ihdr), png.subarray(33)]);
    };

    it('a bit depth not defined for the colour type, undefined methods and interlacing, a zero size', async () => {
      expect(await transcode(withIhdr({}))).toBeDefined();
      for (const fields of [{ depth: 4, colourType: 4 }, { depth: 3 }, { depth: 32 }, { compression: 1 }, { filter: 1 }, { interlace: 2 }, { colourType: 2 }, { colourType: 3 }]) {
        expect(await transcode(withIhdr(fields))).toBeUndefined();
      }
      const png = greyPng({ width: 4, height: 4, depth: 8 });
      const ihdr = Buffer.from(firstChunk(png, 'IHDR').data);
      ihdr.writeUInt32BE(0, 0);
      expect(await transcode(Buffer.concat([png.subarray(0, 8), chunk('IHDR', ihdr), png.subarray(33)]))).toBeUndefined();
    });

    it('data cut short or with a bad CRC before the image data', async () => {
      const grey = greyPng({ width: 4, height: 4, depth: 8, before: [chunk('tEXt', 'Title\0x')] });
      const idat = grey.indexOf('IDAT') - 4;
      for (const end of [4, 8, 20, 33, 40, idat, idat + 6]) expect(await transcode(grey.subarray(0, end))).toBeUndefined();
      const badCrc = Buffer.from(grey);
      badCrc[idat - 1]! ^= 1;
      expect(await transcode(badCrc)).toBeUndefined();
      const badIhdrCrc = Buffer.from(grey);
      badIhdrCrc[30]! ^= 1;
      expect(await transcode(badIhdrCrc)).toBeUndefined();
    });

    it('nothing, random bytes, and random bytes after a PNG signature', async () => {
      expect(await transcode(new Uint8Array(0))).toBeUndefined();
      let seed = 7;
      const random = Uint8Array.from({ length: 4096 }, () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24);
      expect(await transcode(random)).toBeUndefined();
      expect(await transcode(Buffer.concat([SIGNATURE, random]))).toBeUndefined();
    });

    it('an input stream that fails while the header is read', async () => {
      const failing = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(SIGNATURE);
          controller.error(new Error('disk gone'));
        },
      });
      expect(await greyPngAsRgb(failing)).toBeUndefined();
    });
  });

  describe('errors the returned stream on corrupt data after the header', () => {
    const image = { width: 33, height: 17, depth: 8 } as const;
    /** The last byte of the first IDAT's CRC changed. */
    const idatCrcFlipped = (png: Buffer) => withByteFlipped(png, firstChunk(png, 'IDAT').offset + firstChunk(png, 'IDAT').bytes.length - 1);
    const textDataFlipped = (png: Buffer) => withByteFlipped(png, firstChunk(png, 'tEXt').offset + 8);
    const corrupt: [string, () => Buffer, RegExp][] = [
      ['truncated image data', () => greyPng(image).subarray(0, greyPng(image).indexOf('IDAT') + 40), /ends inside the IDAT chunk/],
      ['a bad CRC on an IDAT', () => idatCrcFlipped(greyPng({ ...image, idatBytes: 64 })), /CRC mismatch in the IDAT chunk/],
      ['a filter type that is not defined', () => greyPng({ ...image, filterOf: (n) => (n === 3 ? 5 : 1) }), /filter type 5/],
      ['too little image data', () => greyPng({ ...image, spoil: (s) => s.subarray(0, s.length - 10) }), /ends before the last row/],
      ['too much image data', () => greyPng({ ...image, spoil: (s) => Buffer.concat([s, Buffer.from([0, 1, 2])]) }), /more than the rows of the image/],
      ['image data that is not zlib', () => withIdatData(greyPng(image), Buffer.from('not a zlib stream at all')), /does not inflate/],
      ['a zlib stream cut short', () => withIdatData(greyPng(image), deflateSync(scanlinesOf(image)).subarray(0, 50)), /does not inflate/],
      ['no IEND', () => greyPng(image).subarray(0, -12), /ends before its IEND/],
      ['IDAT chunks that are not consecutive', () => withTextBetweenIdats(greyPng({ ...image, idatBytes: 100 })), /unexpected IDAT chunk/],
      ['a bad CRC after the image data', () => textDataFlipped(greyPng({ ...image, after: [chunk('tEXt', 'a\0b')] })), /CRC mismatch in the tEXt chunk/],
    ];
    for (const [name, make, message] of corrupt) {
      it(name, async () => {
        const rgb = await greyPngAsRgb(streamOf(make()));
        expect(rgb).toBeDefined();
        await expect(bytesOf(rgb!)).rejects.toThrow(message);
        await expect(bytesOf((await greyPngAsRgb(streamOf(make(), () => 100)))!)).rejects.toMatchObject({ name: 'PngDataError', message: expect.stringMatching(/^corrupt PNG: /) });
      });
    }
  });

  describe('streams', () => {
    it('gives the same bytes however the input is cut: one byte at a time, random sizes, empty pieces', async () => {
      const grey = greyPng({ width: 9, height: 7, depth: 2, interlaced: true, before: [chunk('tRNS', Buffer.from([0, 1])), chunk('tEXt', 'Title\0x')], after: [chunk('tEXt', 'b\0c')] });
      const whole = (await transcode(grey))!;
      await expectSamePixels(grey, whole);
      expect(await transcode(grey, () => 1)).toEqual(whole);

      const larger = greyPng({ width: 150, height: 100, depth: 16, alpha: true, interlaced: true, idatBytes: 1000, before: [chunk('tEXt', 'Title\0y')] });
      const largerWhole = (await transcode(larger))!;
      await expectSamePixels(larger, largerWhole);
      let seed = 99;
      const randomSize = () => (seed = (seed * 1103515245 + 12345) >>> 0) % 300;
      for (let round = 0; round < 3; round++) expect(await transcode(larger, randomSize)).toEqual(largerWhole);
    });

    it('cancelling the output cancels the input', async () => {
      const grey = greyPng({ width: 300, height: 300, depth: 8, idatBytes: 4096 });
      let cancelled!: () => void;
      const inputCancelled = new Promise<void>((resolve) => (cancelled = resolve));
      const rgb = (await greyPngAsRgb(streamOf(grey, () => 512, () => cancelled())))!;
      const reader = rgb.getReader();
      await reader.read();
      await reader.cancel();
      await inputCancelled;
    });

    it('converts a 4000×3000 grey photo reading the input as it writes, into a PNG of sensible size', async () => {
      const [width, height] = [4000, 3000];
      const pixels = Buffer.alloc(width * height);
      let seed = 1;
      for (let y = 0, i = 0; y < height; y++) {
        for (let x = 0; x < width; x++, i++) {
          seed = (seed * 1103515245 + 12345) >>> 0;
          pixels[i] = 128 + 100 * Math.sin(x / 300) * Math.cos(y / 200) + (seed >>> 29);
        }
      }
      const grey = await sharp(pixels, { raw: { width, height, channels: 1 } }).toColourspace('b-w').png().toBuffer();
      let read = 0;
      let readAtFirstIdat: number | undefined;
      const rgb = (await greyPngAsRgb(streamOf(grey, () => 16384, undefined).pipeThrough(new TransformStream({ transform: (c, controller) => ((read += c.length), controller.enqueue(c)) }))))!;
      const parts: Uint8Array[] = [];
      for await (const part of rgb as unknown as AsyncIterable<Uint8Array>) {
        if (readAtFirstIdat === undefined && chunksOf(Buffer.concat(parts.concat(part))).some((c) => c.type === 'IDAT')) readAtFirstIdat = read;
        parts.push(part);
      }
      const out = Buffer.concat(parts);
      expect(readAtFirstIdat).toBeLessThan(grey.length / 4);
      const { samples, channels } = await decoded(out, 'srgb');
      expect(channels).toBe(3);
      const rgbOfPixels = Buffer.alloc(pixels.length * 3);
      pixels.forEach((v, i) => rgbOfPixels.fill(v, 3 * i, 3 * i + 3));
      expect(Buffer.from(samples).equals(rgbOfPixels)).toBe(true);
      expect(out.length).toBeLessThan(grey.length); // sharp writes the grey unfiltered; filtered rows compress better, three samples a pixel or not
      const idats = chunksOf(out).filter((c) => c.type === 'IDAT');
      expect(idats.slice(0, -1).every((c) => c.data.length >= 64 * 1024 && c.data.length < 128 * 1024)).toBe(true);
    }, 60_000);
  });
});
