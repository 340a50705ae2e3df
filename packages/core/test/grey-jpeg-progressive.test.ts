import { readFileSync } from 'node:fs';
import sharp, { type JpegOptions } from 'sharp';
import { describe, expect, it } from 'vitest';
import { greyJpegAsYcc, rgbProfileForGrey, sniffMedia } from '../src/index';
import { greyProfile, jpegWithIcc } from '../../../test/support/icc';
import { iccSegment, toneProfiles, withoutIcc } from './helpers/icc-profiles';
import { expectSamePixels, greyPixels, shownDifference } from './helpers/jpeg-files';

// Fixtures sharp cannot make (it exposes no restart interval or sampling
// factors), written once by a small C program against libjpeg-turbo 2.1.5:
// jpeg_set_defaults, jpeg_set_quality(85), jpeg_simple_progression (DC and
// AC scans in successive approximation, refinement scans), the pixels of
// greyPixels (helpers/jpeg-files), plus: restart_interval 5, 61×45 (48
// blocks, 9 restart markers a scan: RST0…RST7 wrap around); component id 7,
// sampling 2×2, restart_interval 2, 45×30.
const FIXTURES = new URL('./fixtures/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, FIXTURES));

/** Smooth waves with a little noise: mozjpeg's scan optimisation then picks successive approximation with refinement scans. */
function smoothPixels(width: number, height: number): Buffer {
  const pixels = Buffer.alloc(width * height);
  let seed = 1;
  for (let i = 0; i < pixels.length; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    const [x, y] = [i % width, Math.floor(i / width)];
    pixels[i] = 128 + 100 * Math.sin(x / 20) * Math.cos(y / 15) + (seed >>> 30);
  }
  return pixels;
}

/** A progressive grey JPEG as sharp (mozjpeg) writes it: SOF2, one component. */
async function progressiveGrey(width: number, height: number, options: JpegOptions = {}, pixels = greyPixels): Promise<Buffer> {
  const jpeg = await sharp(pixels(width, height), { raw: { width, height, channels: 1 } })
    .toColourspace('b-w')
    .jpeg({ progressive: true, ...options })
    .toBuffer();
  expect(parse(jpeg).frame).toMatchObject({ marker: 0xc2, components: [{ sampling: 0x11 }] });
  expect(sniffMedia(jpeg)?.components).toBe(1);
  return jpeg;
}

interface Component {
  id: number;
  sampling: number;
  quantTable: number;
}

interface Scan {
  /** Offset of the SOS marker, of the entropy-coded data, of the marker after it. */
  start: number;
  dataStart: number;
  dataEnd: number;
  components: { id: number; dcTable: number; acTable: number }[];
  ss: number;
  se: number;
  ah: number;
  al: number;
  restartInterval: number;
  /** Huffman tables (class × 4 + id: code as a bit string → symbol) in force at the scan. */
  tables: Map<number, Map<string, number>>;
}

interface Parsed {
  frame: { marker: number; width: number; height: number; components: Component[]; offset: number };
  quantTables: Set<number>;
  scans: Scan[];
  eoi: number;
}

/** Every marker of a JPEG (test data: no fill bytes), its scans with the tables and restart interval in force, up to EOI. */
function parse(jpeg: Uint8Array): Parsed {
  const u16 = (at: number) => (jpeg[at]! << 8) | jpeg[at + 1]!;
  const parsed: Partial<Parsed> & { scans: Scan[]; quantTables: Set<number> } = { scans: [], quantTables: new Set() };
  const tables = new Map<number, Map<string, number>>();
  let restartInterval = 0;
  for (let at = 2; ; ) {
    expect(jpeg[at], `marker at ${at}`).toBe(0xff);
    const marker = jpeg[at + 1]!;
    if (marker === 0xd9) return { ...parsed, eoi: at } as Parsed;
    const end = at + 2 + u16(at + 2);
    const body = jpeg.subarray(at + 4, end);
    if (marker === 0xc0 || marker === 0xc1 || marker === 0xc2) {
      const components = Array.from({ length: body[5]! }, (_, k) => ({ id: body[6 + 3 * k]!, sampling: body[7 + 3 * k]!, quantTable: body[8 + 3 * k]! }));
      parsed.frame = { marker, height: u16(at + 5), width: u16(at + 7), components, offset: at };
    } else if (marker === 0xdb) {
      for (let p = 0; p < body.length; p += body[p]! >> 4 ? 129 : 65) parsed.quantTables.add(body[p]! & 0x0f);
    } else if (marker === 0xc4) {
      for (let p = 0; p < body.length; ) {
        const counts = [...body.subarray(p + 1, p + 17)];
        const symbols = body.subarray(p + 17);
        const codes = new Map<string, number>();
        let code = 0;
        let k = 0;
        counts.forEach((n, length) => {
          for (let i = 0; i < n; i++) codes.set((code++).toString(2).padStart(length + 1, '0'), symbols[k++]!);
          code <<= 1;
        });
        tables.set((body[p]! >> 4) * 4 + (body[p]! & 0x0f), codes);
        p += 17 + k;
      }
    } else if (marker === 0xdd) {
      restartInterval = u16(at + 4);
    } else if (marker === 0xda) {
      const n = body[0]!;
      const components = Array.from({ length: n }, (_, k) => ({ id: body[1 + 2 * k]!, dcTable: body[2 + 2 * k]! >> 4, acTable: body[2 + 2 * k]! & 0x0f }));
      const [ss, se, approximation] = [body[1 + 2 * n]!, body[2 + 2 * n]!, body[3 + 2 * n]!];
      let dataEnd = end;
      while (!(jpeg[dataEnd] === 0xff && jpeg[dataEnd + 1] !== 0 && (jpeg[dataEnd + 1]! & 0xf8) !== 0xd0)) dataEnd++;
      parsed.scans.push({ start: at, dataStart: end, dataEnd, components, ss, se, ah: approximation >> 4, al: approximation & 0x0f, restartInterval, tables: new Map(tables) });
      at = dataEnd;
      continue;
    }
    at = end;
  }
}

/** Blocks of a frame component: its size is the image's scaled by its factors over the largest [A.1.1], in 8×8 blocks. */
function blocksOf(frame: Parsed['frame'], id: number): number {
  const c = frame.components.find((component) => component.id === id)!;
  const hMax = Math.max(...frame.components.map((x) => x.sampling >> 4));
  const vMax = Math.max(...frame.components.map((x) => x.sampling & 0x0f));
  return Math.ceil(Math.ceil((frame.width * (c.sampling >> 4)) / hMax) / 8) * Math.ceil(Math.ceil((frame.height * (c.sampling & 0x0f)) / vMax) / 8);
}

/** A scan's entropy-coded bits, unstuffed; no restart markers expected. */
function scanBits(jpeg: Uint8Array, scan: Scan): { next: (count: number) => number; code: (table: Map<string, number>) => number; left: () => string } {
  const bytes: number[] = [];
  for (let at = scan.dataStart; at < scan.dataEnd; at++) {
    bytes.push(jpeg[at]!);
    if (jpeg[at] === 0xff) expect(jpeg[++at]).toBe(0);
  }
  const bits = bytes.map((b) => b.toString(2).padStart(8, '0')).join('');
  let at = 0;
  const next = (count: number) => {
    expect(at + count).toBeLessThanOrEqual(bits.length);
    at += count;
    return count === 0 ? 0 : parseInt(bits.slice(at - count, at), 2);
  };
  const code = (table: Map<string, number>) => {
    for (let length = 1; length <= 16; length++) {
      const symbol = at + length <= bits.length ? table.get(bits.slice(at, at + length)) : undefined;
      if (symbol === undefined) continue;
      at += length;
      return symbol;
    }
    throw new Error(`no Huffman code at bit ${at} of ${bits.length}`);
  };
  return { next, code, left: () => bits.slice(at) };
}

/**
 * The output's structure: the grey component and its scans as they were,
 * byte for byte; Cb and Cr at 1×1 with ids of their own and a defined
 * quantisation table; for each, one DC first scan and one AC first scan
 * (Ah = Al = 0), non-interleaved, without restart markers, coding exactly
 * its blocks with all-zero coefficients (DC category 0; EOB runs summing to
 * the block count), padded with 1-bits; then EOI, the end of the file.
 */
function expectYccStructure(grey: Uint8Array, ycc: Uint8Array): void {
  const [g, y] = [parse(grey), parse(ycc)];
  expect(y.frame.marker).toBe(0xc2);
  expect(y.frame.components).toHaveLength(3);
  const [greyComponent, ...chroma] = y.frame.components as [Component, Component, Component];
  expect(greyComponent).toEqual(g.frame.components[0]);
  expect(new Set(y.frame.components.map((c) => c.id)).size).toBe(3);
  for (const c of chroma) expect([c.sampling, y.quantTables.has(c.quantTable)]).toEqual([0x11, true]);
  const greyBytes = grey.subarray(g.scans[0]!.start, g.eoi);
  expect(Buffer.from(ycc.subarray(y.scans[0]!.start, y.scans[0]!.start + greyBytes.length)).equals(greyBytes)).toBe(true);
  const appended = y.scans.slice(g.scans.length);
  expect(appended).toHaveLength(4);
  for (const { id } of chroma) {
    const blocks = blocksOf(y.frame, id);
    const ofComponent = appended.filter((scan) => scan.components.some((c) => c.id === id));
    expect(ofComponent.map((s) => [s.components.length, s.ss, s.se, s.ah, s.al, s.restartInterval])).toEqual([
      [1, 0, 0, 0, 0, 0],
      [1, 1, 63, 0, 0, 0],
    ]);
    const [dc, ac] = ofComponent as [Scan, Scan];
    const dcBits = scanBits(ycc, dc);
    const dcTable = dc.tables.get(dc.components[0]!.dcTable)!;
    for (let n = 0; n < blocks; n++) expect(dcBits.code(dcTable)).toBe(0);
    expect(dcBits.left()).toMatch(/^1{0,7}$/);
    const acBits = scanBits(ycc, ac);
    const acTable = ac.tables.get(4 + ac.components[0]!.acTable)!;
    let coded = 0;
    while (coded < blocks) {
      const symbol = acBits.code(acTable);
      expect(symbol & 0x0f, 'an EOB run').toBe(0);
      expect(symbol >> 4).toBeLessThan(15);
      coded += (1 << (symbol >> 4)) + acBits.next(symbol >> 4);
    }
    expect(coded).toBe(blocks);
    expect(acBits.left()).toMatch(/^1{0,7}$/);
  }
  expect(y.eoi).toBe(ycc.length - 2);
}

async function expectConverted(grey: Uint8Array): Promise<Uint8Array> {
  const ycc = greyJpegAsYcc(grey);
  await expectSamePixels(grey, ycc, { isProgressive: true });
  expectYccStructure(grey, ycc!);
  return ycc!;
}

/** A copy of `jpeg` with bytes at `offset` set to `values`. */
function patched(jpeg: Uint8Array, offset: number, ...values: number[]): Buffer {
  const copy = Buffer.from(jpeg);
  values.forEach((v, k) => (copy[offset + k] = v));
  return copy;
}

/** `jpeg` with `bytes` inserted at `at`. */
function inserted(jpeg: Uint8Array, at: number, bytes: ArrayLike<number>): Buffer {
  return Buffer.concat([jpeg.subarray(0, at), Buffer.from(bytes as number[]), jpeg.subarray(at)]);
}

/** A marker segment. */
function segmentBytes(marker: number, body: ArrayLike<number>): Buffer {
  return Buffer.from([0xff, marker, (body.length + 2) >> 8, (body.length + 2) & 0xff, ...Array.from(body)]);
}

/** `jpeg` with its one component's id set to `id`, in the frame header and every scan header. */
function withComponentId(jpeg: Uint8Array, id: number): Buffer {
  const { frame, scans } = parse(jpeg);
  const copy = patched(jpeg, frame.offset + 10, id);
  for (const scan of scans) copy[scan.start + 5] = id;
  return copy;
}

describe('greyJpegAsYcc, progressive', () => {
  const sizes = [
    [1, 1],
    [7, 9],
    [61, 45],
    [640, 427],
  ] as const;
  for (const [width, height] of sizes) {
    for (const quality of [50, 95]) {
      it(`keeps every pixel of a ${width}×${height} progressive grey JPEG, quality ${quality}: libjpeg's scan script, successive approximation`, async () => {
        const grey = await progressiveGrey(width, height, { quality });
        expect(parse(grey).scans.some((scan) => scan.ah > 0)).toBe(true);
        await expectConverted(grey);
      });
      it(`keeps every pixel of a ${width}×${height} progressive grey JPEG, quality ${quality}: mozjpeg's optimised scans, trellis quantisation, deringing`, async () => {
        const grey = await progressiveGrey(width, height, { quality, optimiseScans: true, trellisQuantisation: true, overshootDeringing: true }, smoothPixels);
        await expectConverted(grey);
      });
    }
  }

  it('keeps every pixel with optimised scans in successive approximation, refinement scans included, and with standard Huffman tables asked for', async () => {
    const grey = await progressiveGrey(640, 427, { quality: 95, optimiseScans: true }, smoothPixels);
    expect(parse(grey).scans.filter((scan) => scan.ah > 0).length).toBeGreaterThanOrEqual(3);
    await expectConverted(grey);
    await expectConverted(await progressiveGrey(99, 51, { quality: 80, optimiseCoding: false, quantisationTable: 3 }));
  });

  it('codes more than 32767 empty chroma blocks with several EOB runs', async () => {
    const grey = await progressiveGrey(2056, 1024, { quality: 60 });
    expect(blocksOf(parse(await expectConverted(grey)).frame, 2)).toBe(257 * 128);
  });

  it('keeps every pixel across restart markers (libjpeg fixture), the interval set to 0 before the chroma scans', async () => {
    const grey = fixture('grey-progressive-restart-5.jpg');
    const scans = parse(grey).scans;
    expect(scans.map((s) => s.restartInterval)).toEqual(scans.map(() => 5));
    expect(grey.includes(Buffer.from([0xff, 0xd7]))).toBe(true);
    await expectConverted(grey);
  });

  it('keeps every pixel of a component with id 7 and sampling factors 2×2 (libjpeg fixture), the chroma at 4:2:0', async () => {
    const grey = fixture('grey-progressive-sampling-2x2-id-7-restart-2.jpg');
    expect(parse(grey).frame.components).toEqual([{ id: 7, sampling: 0x22, quantTable: 0 }]);
    const ycc = await expectConverted(grey);
    expect(parse(ycc).frame.components).toEqual([
      { id: 7, sampling: 0x22, quantTable: 0 },
      { id: 8, sampling: 0x11, quantTable: 0 },
      { id: 9, sampling: 0x11, quantTable: 0 },
    ]);
    expect((await sharp(ycc).metadata()).chromaSubsampling).toBe('4:2:0');
  });

  it('keeps every pixel whatever the grey component’s sampling factors: its block grid stays, as it keeps the largest', async () => {
    const grey = await progressiveGrey(61, 45, { quality: 90 });
    for (const sampling of [0x12, 0x21, 0x22, 0x31, 0x13, 0x44, 0x41]) await expectConverted(patched(grey, parse(grey).frame.offset + 11, sampling));
  });

  it('keeps the component id, giving Cb and Cr the next two (1, 2, 3 as JFIF has it) or, at the top, the two below', async () => {
    const grey = await progressiveGrey(33, 17, { quality: 90 });
    const ids = async (jpeg: Uint8Array) => parse(await expectConverted(jpeg)).frame.components.map((c) => c.id);
    expect(await ids(grey)).toEqual([1, 2, 3]);
    expect(await ids(withComponentId(grey, 0))).toEqual([0, 1, 2]);
    expect(await ids(withComponentId(grey, 82))).toEqual([82, 83, 84]); // not 'R', 'G', 'B'
    expect(await ids(withComponentId(grey, 255))).toEqual([255, 253, 254]);
  });

  it('gives the chroma tables ids the grey scans do not decode with, or redefines one after them when all four are used', async () => {
    // libjpeg's script has four AC scans, each after a DHT of AC table 0: renumber them 0, 1, 2, 3.
    const grey = await progressiveGrey(61, 45, { quality: 90 });
    const copy = Buffer.from(grey);
    const acScans = parse(grey).scans.filter((scan) => scan.ss > 0);
    expect(acScans).toHaveLength(4);
    acScans.forEach((scan, k) => {
      const dht = copy.lastIndexOf(Buffer.from([0xff, 0xc4]), scan.start);
      expect(copy[dht + 4]).toBe(0x10);
      copy[dht + 4] = 0x10 | k;
      copy[scan.start + 6] = k;
    });
    const ycc = await expectConverted(copy);
    const chroma = parse(ycc).scans.slice(-4);
    expect(chroma.map((scan) => scan.components[0]!.dcTable).slice(0, 2)).toEqual([1, 1]);
    expect(chroma.map((scan) => scan.components[0]!.acTable).slice(2)).toEqual([0, 0]);
  });

  it('keeps comments and restart intervals between scans, EXIF and the other segments before them', async () => {
    const plain = await sharp(greyPixels(40, 24), { raw: { width: 40, height: 24, channels: 1 } })
      .toColourspace('b-w')
      .withExif({ IFD0: { ImageDescription: 'grey test scene' } })
      .jpeg({ progressive: true, quality: 90 })
      .toBuffer();
    const third = parse(plain).scans[2]!.start;
    const grey = inserted(plain, third, [...segmentBytes(0xfe, Buffer.from('between scans')), ...segmentBytes(0xdd, [0, 0])]);
    const ycc = await expectConverted(grey);
    expect(Buffer.from(ycc).includes('between scans')).toBe(true);
    expect((await sharp(ycc).metadata()).exif?.toString('latin1')).toContain('grey test scene');
  });

  it('refuses arithmetic coding, 12-bit samples, sampling factors outside 1–4 and a colour progressive JPEG', async () => {
    const grey = await progressiveGrey(33, 17);
    const sof = parse(grey).frame.offset;
    expect(greyJpegAsYcc(patched(grey, sof + 1, 0xca))).toBeUndefined();
    expect(greyJpegAsYcc(patched(grey, sof + 4, 12))).toBeUndefined();
    for (const sampling of [0x01, 0x10, 0x15, 0x51]) expect(greyJpegAsYcc(patched(grey, sof + 11, sampling))).toBeUndefined();
    const colour = await sharp(Buffer.alloc(16 * 8 * 3, 90), { raw: { width: 16, height: 8, channels: 3 } })
      .jpeg({ progressive: true })
      .toBuffer();
    expect(greyJpegAsYcc(colour)).toBeUndefined();
    expect(greyJpegAsYcc(grey)).toBeDefined();
  });

  it('refuses a scan of another component, of an invalid band or approximation, or with an undefined Huffman table', async () => {
    const grey = await progressiveGrey(33, 17, { quality: 90 });
    const scans = parse(grey).scans;
    const dc = scans.find((s) => s.ss === 0 && s.ah === 0)!.start;
    const ac = scans.find((s) => s.ss > 0 && s.ah === 0)!.start;
    const refinement = scans.find((s) => s.ss > 0 && s.ah > 0)!.start;
    const cases = [
      patched(grey, scans[2]!.start + 5, 2), // another component
      Buffer.concat([grey.subarray(0, dc), segmentBytes(0xda, [2, 1, 0x00, 2, 0x00, 0, 0, 1]), grey.subarray(dc + 10)]), // two components: 1 and 2
      patched(grey, dc + 8, 5), // a DC scan with AC coefficients
      patched(grey, ac + 7, 0), // an AC scan from DC on
      patched(grey, ac + 8, 64), // past the block
      patched(grey, ac + 7, 9, 8), // Ss > Se
      patched(grey, refinement + 9, 0x31), // Ah not Al + 1
      patched(grey, ac + 9, 0x0e), // Al 14
      patched(grey, ac + 6, 0x03), // AC table 3, never defined
    ];
    cases.forEach((jpeg, k) => expect(greyJpegAsYcc(jpeg), `case ${k}`).toBeUndefined());
  });

  it('refuses truncated data, a missing EOI, a stray or missing restart marker, and DNL, a profile or an Adobe segment between scans', async () => {
    const grey = await progressiveGrey(64, 48, { quality: 90 });
    const scans = parse(grey).scans;
    const cuts = [scans[0]!.dataStart + 4, scans[2]!.dataStart + 20, scans[2]!.dataEnd, scans.at(-1)!.dataEnd - 1, grey.length - 2, grey.length - 1];
    for (const end of cuts) expect(greyJpegAsYcc(grey.subarray(0, end)), `cut at ${end}`).toBeUndefined();
    expect(greyJpegAsYcc(patched(grey, grey.length - 1, 0xd8))).toBeUndefined();
    expect(greyJpegAsYcc(inserted(grey, scans[1]!.dataStart + 10, [0xff, 0xd0]))).toBeUndefined();
    const emptyScan = Buffer.concat([grey.subarray(0, scans[2]!.dataStart), grey.subarray(scans[2]!.dataEnd)]);
    expect(greyJpegAsYcc(emptyScan)).toBeUndefined();
    // Restart markers: the 9 of a scan of the fixture, one missing (in the middle, at the end), out of order, an interval without data.
    const restarts = fixture('grey-progressive-restart-5.jpg');
    const { dataStart, dataEnd } = parse(restarts).scans[1]!;
    const rst = [...restarts.subarray(dataStart, dataEnd).entries()].filter(([i, v]) => v === 0xff && (restarts[dataStart + i + 1]! & 0xf8) === 0xd0).map(([i]) => dataStart + i);
    expect(rst.map((at) => restarts[at + 1])).toEqual([0xd0, 0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd0]);
    const without = (from: number, to: number) => Buffer.concat([restarts.subarray(0, from), restarts.subarray(to)]);
    expect(greyJpegAsYcc(restarts)).toBeDefined();
    expect(greyJpegAsYcc(without(rst[3]!, rst[3]! + 2))).toBeUndefined();
    expect(greyJpegAsYcc(without(rst[8]!, rst[8]! + 2))).toBeUndefined();
    expect(greyJpegAsYcc(patched(restarts, rst[0]! + 1, 0xd1))).toBeUndefined();
    expect(greyJpegAsYcc(without(rst[0]! + 2, rst[1]!))).toBeUndefined();
    const between = scans[1]!.start;
    expect(greyJpegAsYcc(inserted(grey, between, segmentBytes(0xdc, [0, 48])))).toBeUndefined();
    expect(greyJpegAsYcc(inserted(grey, between, iccSegment(1, 1, greyProfile('Gray Gamma 2.2', 2.2))))).toBeUndefined();
    expect(greyJpegAsYcc(inserted(grey, between, segmentBytes(0xee, [...Buffer.from('Adobe'), 0, 100, 0, 0, 0, 0, 0])))).toBeUndefined();
    expect(greyJpegAsYcc(inserted(grey, between, segmentBytes(0xe1, Buffer.from('Exif\0\0'))))).toBeDefined();
  });
});

describe('greyJpegAsYcc, progressive, with an ICC profile', () => {
  for (const { name, profile, lcmsGreyExact } of toneProfiles()) {
    it(`keeps the scans bit for bit and the tones a viewer shows, the grey profile swapped for its RGB one: ${name}`, async () => {
      const plain = await progressiveGrey(96, 64, { quality: 90 });
      const grey = jpegWithIcc(plain, profile);
      const ycc = greyJpegAsYcc(grey);
      expect(ycc).toBeDefined();
      expectYccStructure(grey, ycc!);
      const icc = (await sharp(ycc!).metadata()).icc;
      expect(icc?.equals(rgbProfileForGrey(profile)!)).toBe(true);
      expect(withoutIcc(ycc!).equals(greyJpegAsYcc(plain)!)).toBe(true);
      expect(await shownDifference(ycc!, grey)).toBeLessThanOrEqual(lcmsGreyExact ? 1 : 5);
    });
  }

  it('refuses any profile when asked to (profiles: false); a progressive JPEG without one is converted still', async () => {
    const plain = await progressiveGrey(40, 24, { quality: 90 });
    const grey = jpegWithIcc(plain, greyProfile('Gray Gamma 2.2', 2.2));
    expect(greyJpegAsYcc(grey)).toBeDefined();
    expect(greyJpegAsYcc(grey, { profiles: false })).toBeUndefined();
    expect(greyJpegAsYcc(plain, { profiles: false })).toEqual(greyJpegAsYcc(plain));
  });
});
