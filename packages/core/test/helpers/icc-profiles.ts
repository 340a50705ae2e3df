/**
 * ICC profiles and JPEG ICC segments for the grey-icc and grey-jpeg tests:
 * grey profiles of either version with any tone curve (`curv` gamma or
 * table, `para`), and APP2 chunks in any order, so that real-world shapes
 * (Photoshop's Dot Gain tables, v4 parametric curves, profiles over 64 KB)
 * can be checked against lcms (sharp). Not calibrated profiles.
 */

import { D50, D50_ENCODED, greyProfile, iccProfile, type ProfileSpec } from '../../../../test/support/icc';

export { D50, D50_ENCODED, iccProfile, type ProfileSpec };

export type Xyz = [number, number, number];

/** A grey profile: description, copyright and white point of the version's types, then `extra` tags (kTRC among them). */
export function greyIccProfile(version: 2 | 4, name: string, extra: [string, Uint8Array][], options: Partial<ProfileSpec> = {}): Buffer {
  const text = version === 4 ? mluc : textDescription;
  const copyright = version === 4 ? mluc('No copyright, test data') : textTag('No copyright, test data');
  return iccProfile({ version: version === 4 ? 0x04300000 : 0x02100000, tags: [['desc', text(name)], ['cprt', copyright], ['wtpt', xyz(D50)], ...extra], ...options });
}

export function s15(v: number): number {
  return Math.round(v * 65536);
}

export function xyz([x, y, z]: Xyz): Buffer {
  const b = Buffer.alloc(20);
  b.write('XYZ ', 0, 'latin1');
  [x, y, z].forEach((v, k) => b.writeInt32BE(s15(v), 8 + 4 * k));
  return b;
}

/** `sf32` of a 3×3 matrix, row by row (a chromatic adaptation tag). */
export function sf32(matrix: number[]): Buffer {
  const b = Buffer.alloc(8 + 4 * matrix.length);
  b.write('sf32', 0, 'latin1');
  matrix.forEach((v, k) => b.writeInt32BE(s15(v), 8 + 4 * k));
  return b;
}

/** A `curv` of `entries` samples of `f` over [0, 1]. */
export function curvTable(entries: number, f: (x: number) => number): Buffer {
  const b = Buffer.alloc(12 + 2 * entries);
  b.write('curv', 0, 'latin1');
  b.writeUInt32BE(entries, 8);
  for (let i = 0; i < entries; i++) b.writeUInt16BE(Math.round(Math.min(1, Math.max(0, f(i / (entries - 1)))) * 65535), 12 + 2 * i);
  return b;
}

/** A `para` of `functionType` (0–4) with its parameters (g, a, b, c, d, e, f as the type takes them). */
export function para(functionType: number, parameters: number[]): Buffer {
  const b = Buffer.alloc(12 + 4 * parameters.length);
  b.write('para', 0, 'latin1');
  b.writeUInt16BE(functionType, 8);
  parameters.forEach((v, k) => b.writeInt32BE(s15(v), 12 + 4 * k));
  return b;
}

/** v2 textDescriptionType: ASCII, then empty Unicode and ScriptCode parts. */
export function textDescription(name: string): Buffer {
  const b = Buffer.alloc(12 + name.length + 1 + 4 + 4 + 3 + 67);
  b.write('desc', 0, 'latin1');
  b.writeUInt32BE(name.length + 1, 8);
  b.write(name, 12, 'latin1');
  return b;
}

export function textTag(value: string): Buffer {
  return Buffer.from(`text\0\0\0\0${value}\0`, 'latin1');
}

/** v4 multiLocalizedUnicodeType, one en-US record. */
export function mluc(value: string): Buffer {
  const b = Buffer.alloc(28 + 2 * value.length);
  b.write('mluc', 0, 'latin1');
  b.writeUInt32BE(1, 8);
  b.writeUInt32BE(12, 12);
  b.write('enUS', 16, 'latin1');
  b.writeUInt32BE(2 * value.length, 20);
  b.writeUInt32BE(28, 24);
  Buffer.from(value, 'utf16le').swap16().copy(b, 28);
  return b;
}

/** Photoshop-like dot gain: a `percent` % gain at the 50 % dot (coverage k + 4·gain·k(1 − k)), the paper white, solid ink black. */
export function dotGain(percent: number): (v: number) => number {
  return (v) => {
    const k = 1 - v;
    return 1 - Math.min(1, k + (4 * percent * k * (1 - k)) / 100);
  };
}

/**
 * A v4 `para` function type 3 — Y = (aX + b)^g above d, cX below — for gamma
 * `g` with a linear toe tangent to the power segment (continuous, as in
 * Rec. 709's form): offset `o` gives a = 1/(1 + o), b = o/(1 + o), d = o/(g − 1).
 */
export function gammaWithToe(g: number, o: number): number[] {
  const a = 1 / (1 + o);
  const b = o / (1 + o);
  const d = o / (g - 1);
  const c = (a * d + b) ** g / d;
  return [g, a, b, c, d];
}

/** One parsed tag table entry. */
export interface TagEntry {
  sig: string;
  offset: number;
  size: number;
}

export function tagTable(profile: Uint8Array): TagEntry[] {
  const b = Buffer.from(profile.buffer, profile.byteOffset, profile.byteLength);
  return Array.from({ length: b.readUInt32BE(128) }, (_, k) => ({
    sig: b.toString('latin1', 132 + 12 * k, 136 + 12 * k),
    offset: b.readUInt32BE(136 + 12 * k),
    size: b.readUInt32BE(140 + 12 * k),
  }));
}

export function tagData(profile: Uint8Array, sig: string): Buffer | undefined {
  const entry = tagTable(profile).find((t) => t.sig === sig);
  return entry && Buffer.from(profile.subarray(entry.offset, entry.offset + entry.size));
}

/** An XYZType tag's three s15Fixed16 numbers as encoded. */
export function xyzNumbers(tag: Uint8Array): Xyz {
  const b = Buffer.from(tag);
  return [b.readInt32BE(8), b.readInt32BE(12), b.readInt32BE(16)];
}

/** An APP2 segment (marker included) with an ICC chunk: sequence number, count, data. */
export function iccSegment(sequence: number, count: number, chunk: Uint8Array): Buffer {
  const data = Buffer.concat([Buffer.from('ICC_PROFILE\0', 'latin1'), Buffer.from([sequence, count]), chunk]);
  const head = Buffer.alloc(4);
  head.writeUInt16BE(0xffe2, 0);
  head.writeUInt16BE(data.length + 2, 2);
  return Buffer.concat([head, data]);
}

/** `profile` split into `parts` chunks of about equal size, as [sequence, count, chunk]. */
export function iccChunks(profile: Uint8Array, parts: number): [number, number, Uint8Array][] {
  const size = Math.ceil(profile.length / parts);
  return Array.from({ length: parts }, (_, k) => [k + 1, parts, profile.subarray(k * size, (k + 1) * size)]);
}

/** `jpeg` with APP2 segments for `chunks` (in the order given) inserted at byte `at` (default: after SOI). */
export function jpegWithIccChunks(jpeg: Uint8Array, chunks: [number, number, Uint8Array][], at = 2): Buffer {
  return Buffer.concat([jpeg.subarray(0, at), ...chunks.map(([sequence, count, chunk]) => iccSegment(sequence, count, chunk)), jpeg.subarray(at)]);
}

/** A JPEG's marker segments up to SOS as [marker, bytes] (no fill bytes in test data). */
export function jpegSegments(jpeg: Uint8Array): [number, Buffer][] {
  const b = Buffer.from(jpeg.buffer, jpeg.byteOffset, jpeg.byteLength);
  const found: [number, Buffer][] = [];
  for (let at = 2; found.at(-1)?.[0] !== 0xda; ) {
    const end = at + 2 + b.readUInt16BE(at + 2);
    found.push([b[at + 1]!, b.subarray(at, end)]);
    at = end;
  }
  return found;
}

export const isIccSegment = ([marker, bytes]: [number, Buffer]) => marker === 0xe2 && bytes.subarray(4, 16).toString('latin1') === 'ICC_PROFILE\0';

/** `jpeg` without its ICC APP2 segments. */
export function withoutIcc(jpeg: Uint8Array): Buffer {
  const segments = jpegSegments(jpeg);
  const headerEnd = 2 + segments.reduce((n, [, bytes]) => n + bytes.length, 0);
  return Buffer.concat([jpeg.subarray(0, 2), ...segments.filter((s) => !isIccSegment(s)).map(([, bytes]) => bytes), jpeg.subarray(headerEnd)]);
}

/** The ICC profile a JPEG's APP2 segments carry, in their sequence numbers' order, with each segment's [sequence, count]. */
export function embeddedIcc(jpeg: Uint8Array): { profile: Buffer; numbering: [number, number][] } {
  const chunks = jpegSegments(jpeg)
    .filter(isIccSegment)
    .map(([, bytes]) => ({ sequence: bytes[16]!, count: bytes[17]!, data: bytes.subarray(18) }));
  return {
    profile: Buffer.concat([...chunks].sort((x, y) => x.sequence - y.sequence).map((c) => c.data)),
    numbering: chunks.map((c) => [c.sequence, c.count]),
  };
}

/** A grey profile for the tone tests: how it maps a grey value in [0, 1] to Y, as a CMM evaluates its kTRC. */
export interface ToneProfile {
  name: string;
  profile: Buffer;
  trc: (x: number) => number;
  /**
   * Whether lcms (sharp) shows the grey image itself within a level of the
   * exact tones. It does not near a knee or a steep dark slope: its 8-bit
   * grey transform is one resampled curve (its errors fall between multiples
   * of 255/32), while an RGB matrix/TRC transform keeps the curves as they are.
   */
  lcmsGreyExact: boolean;
}

/** A `curv` table of `f` and its evaluation as a CMM does it: the 16-bit entries, linearly interpolated. */
function tableCurve(entries: number, f: (x: number) => number): { tag: Buffer; trc: (x: number) => number } {
  const tag = curvTable(entries, f);
  const entry = (i: number) => tag.readUInt16BE(12 + 2 * i) / 65535;
  const trc = (x: number) => {
    const at = x * (entries - 1);
    const i = Math.min(entries - 2, Math.floor(at));
    return entry(i) + (at - i) * (entry(i + 1) - entry(i));
  };
  return { tag, trc };
}

/** A type 3 `para` and its evaluation with the parameters as encoded (s15Fixed16). */
function paraCurve(parameters: number[]): { tag: Buffer; trc: (x: number) => number } {
  const [g, a, b, c, d] = parameters.map((v) => s15(v) / 65536) as [number, number, number, number, number];
  return { tag: para(3, parameters), trc: (x) => (x >= d ? Math.max(0, a * x + b) ** g : c * x) };
}

/** The u8.8 gamma `greyProfile` (test/support/icc) encodes. */
const encodedGamma = (gamma: number) => Math.round(gamma * 256) / 256;

export function toneProfiles(): ToneProfile[] {
  const dotGain20 = tableCurve(256, dotGain(20));
  const dotGain20Fine = tableCurve(1024, dotGain(20));
  const toe22 = paraCurve(gammaWithToe(2.2, 0.055));
  const toe18 = paraCurve(gammaWithToe(1.8, 0.02));
  const dotGain30 = tableCurve(1024, dotGain(30));
  const dotGain15 = tableCurve(1024, dotGain(15));
  const toe709 = paraCurve(gammaWithToe(1.8, 0.099));
  const identity = sf32([1, 0, 0, 0, 1, 0, 0, 0, 1]);
  return [
    { name: 'Gray Gamma 2.2 (v2, curv gamma)', profile: greyProfile('Gray Gamma 2.2', 2.2), trc: (x) => x ** encodedGamma(2.2), lcmsGreyExact: true },
    { name: 'Gray Gamma 1.8 (v2, curv gamma)', profile: greyProfile('Gray Gamma 1.8', 1.8), trc: (x) => x ** encodedGamma(1.8), lcmsGreyExact: true },
    { name: 'Dot Gain 20% (v2 output class, 256-entry curv)', profile: greyIccProfile(2, 'Dot Gain 20%', [['kTRC', dotGain20.tag]], { cls: 'prtr' }), trc: dotGain20.trc, lcmsGreyExact: true },
    { name: 'Dot Gain 20% (v2 input class, 1024-entry curv)', profile: greyIccProfile(2, 'Dot Gain 20% (1024)', [['kTRC', dotGain20Fine.tag]], { cls: 'scnr' }), trc: dotGain20Fine.trc, lcmsGreyExact: true },
    { name: 'gamma 2.2 with an sRGB-like toe (v4, para type 3, chad)', profile: greyIccProfile(4, 'Gamma 2.2 toe', [['chad', identity], ['kTRC', toe22.tag]]), trc: toe22.trc, lcmsGreyExact: true },
    { name: 'gamma 1.8 with a linear toe (v4, para type 3)', profile: greyIccProfile(4, 'Gamma 1.8 toe', [['kTRC', toe18.tag]]), trc: toe18.trc, lcmsGreyExact: true },
    { name: 'Dot Gain 30%, solid below 17 % (v2, 1024-entry curv, a knee)', profile: greyIccProfile(2, 'Dot Gain 30%', [['kTRC', dotGain30.tag]], { cls: 'prtr' }), trc: dotGain30.trc, lcmsGreyExact: false },
    { name: 'Dot Gain 15% (v2, 1024-entry curv, a steep dark slope)', profile: greyIccProfile(2, 'Dot Gain 15%', [['kTRC', dotGain15.tag]], { cls: 'prtr' }), trc: dotGain15.trc, lcmsGreyExact: false },
    { name: 'gamma 1.8 with a Rec. 709-like toe (v4, para type 3, a steep dark slope)', profile: greyIccProfile(4, 'Gamma 1.8 709 toe', [['kTRC', toe709.tag]]), trc: toe709.trc, lcmsGreyExact: false },
  ];
}

/** The sRGB encoding of a linear Y (IEC 61966-2-1), as an 8-bit value before rounding. */
export function srgbLevel(y: number): number {
  return 255 * (y <= 0.0031308 ? 12.92 * y : 1.055 * y ** (1 / 2.4) - 0.055);
}
