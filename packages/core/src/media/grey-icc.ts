/**
 * An RGB ICC profile under which R = G = B = v shows exactly as a grey
 * profile shows the grey value v, so that greyscale data carried as RGB
 * (greyJpegAsYcc) keeps the tones its grey profile gave it. Photoshop saves
 * grey JPEGs with a grey profile (Dot Gain 20 %, Gray Gamma 2.2); dropping
 * it, or keeping it on RGB data it cannot describe, changes the tones.
 *
 * Why it is exact. A monochrome profile with an XYZ PCS maps a grey value v
 * to PCSXYZ = PCS white (D50 [6.3.4.3]) × grayTRC(v) [ICC.1:2010 8.3.4,
 * 8.4.4, 8.5.3 monochrome profiles; F.2 "connection = grayTRC[device]"].
 * A matrix/TRC RGB profile maps (R, G, B) to PCSXYZ = rXYZ·rTRC(R) +
 * gXYZ·gTRC(G) + bXYZ·bTRC(B) [8.4.3; F.3]. With rTRC = gTRC = bTRC = the
 * grey profile's grayTRC (the same tag bytes: one copy, which the three tag
 * table entries share [7.3]) and colorants that sum, as encoded, to the PCS
 * illuminant, R = G = B = v gives (rXYZ + gXYZ + bXYZ) × grayTRC(v) =
 * D50 × grayTRC(v): the grey pixel's XYZ, so every colour-managed decoder
 * shows the same tones. The colorants are the sRGB primaries adapted to
 * D50; neutral pixels never show them. (A Lab-PCS grey profile maps grayTRC
 * to L*, not Y: refused.)
 *
 * Pure: bytes in, bytes out. References in brackets are to ICC.1:2010 (v4)
 * unless they name ICC.1:2001-04 (v2).
 */

import { i32be, u16be, u32be } from './bytes';

/**
 * The RGB display (`mntr`) matrix/TRC profile equivalent to the grey ICC
 * profile `grey` for greyscale data carried as R = G = B: same version,
 * rendering intent, PCS illuminant, white point (`wtpt`), chromatic
 * adaptation (`chad`) and copyright; its grey tone curve (`kTRC`, `curv` or,
 * in v4, `para`) as the three channels' curve; sRGB colorants summing to the
 * PCS illuminant exactly; a description naming the grey profile. Undefined
 * — never a throw — for anything else: not an ICC v2 or v4 profile, not
 * GRAY, a PCS other than XYZ, no `kTRC` or one of another type, a grey LUT
 * (`A2Bx`/`D2Bx`, which would take precedence over `kTRC`), a PCS
 * illuminant other than D50, a size or tag table that does not add up.
 *
 * @example
 * const rgb = rgbProfileForGrey(embeddedGreyProfile); // embed with the grey samples as RGB
 */
export function rgbProfileForGrey(grey: Uint8Array): Uint8Array | undefined {
  try {
    const source = readGreyProfile(grey);
    return source && writeRgbProfile(source);
  } catch {
    // A bounds slip in a hostile profile: the caller converts another way.
    return undefined;
  }
}

/** The header is 128 bytes [7.2]; the tag table follows: a count, then 12 bytes per tag [7.3]. */
const HEADER_SIZE = 128;
const TAG_ENTRY_SIZE = 12;

/** What a profile made from another (grey from RGB, RGB from grey) keeps of it. */
export interface SourceProfile {
  header: Uint8Array;
  major: number;
  /** The tone curve tag's bytes as they are (its declared size holds the curve). */
  trc: Uint8Array;
  whitePoint: Uint8Array;
  adaptation?: Uint8Array;
  copyright?: Uint8Array;
  description?: string;
}

/** The parts of the grey profile the RGB one is made of. */
interface GreyProfile extends SourceProfile {
  /** The PCS illuminant's s15Fixed16 X, Y, Z as encoded [7.2.16]. */
  illuminant: Xyz;
}

export type Xyz = [number, number, number];

/** Classes that define a monochrome profile from grayTRC [8.3.4, 8.4.4, 8.5.3]; device links, colour space, abstract and named colour profiles do not. */
const GREY_CLASSES = new Set(['scnr', 'mntr', 'prtr']);
/** When present, these define the grey-to-PCS transform instead of grayTRC [8.10.2]: the TRC alone would not show the same tones. */
const LUT_TAGS = new Set(['A2B0', 'A2B1', 'A2B2', 'D2B0', 'D2B1', 'D2B2', 'D2B3']);

function readGreyProfile(b: Uint8Array): GreyProfile | undefined {
  const read = readDisplayable(b, 'GRAY', GREY_CLASSES);
  const kTrc = read?.tags.get('kTRC');
  const trc = kTrc && toneCurve(kTrc, read!.source.major);
  return trc ? { ...read!.source, illuminant: read!.illuminant, trc } : undefined;
}

/**
 * A v2 or v4 profile of one of `classes` for data in `space`, with an XYZ PCS,
 * a D50 PCS illuminant and no LUT (which would take precedence over the
 * curves): its tags, its illuminant as encoded, and what a profile made from
 * it keeps (all but the curve); undefined for anything else or a malformed
 * header, tag table, white point, adaptation or copyright.
 */
export function readDisplayable(b: Uint8Array, space: 'GRAY' | 'RGB ', classes: ReadonlySet<string>): { tags: Map<string, Uint8Array>; illuminant: Xyz; source: Omit<SourceProfile, 'trc'> } | undefined {
  if (b.length < HEADER_SIZE + 4 || u32be(b, 0) !== b.length || text(b, 36, 4) !== 'acsp') return undefined;
  const major = b[8]!;
  if ((major !== 2 && major !== 4) || !classes.has(text(b, 12, 4)) || text(b, 16, 4) !== space || text(b, 20, 4) !== 'XYZ ') return undefined;
  const tags = readTagTable(b);
  if (!tags || [...tags.keys()].some((sig) => LUT_TAGS.has(sig))) return undefined;
  const illuminant: Xyz = [i32be(b, 68), i32be(b, 72), i32be(b, 76)];
  const whitePoint = optionalTag(tags.get('wtpt'), 'XYZ ', 20);
  const adaptation = optionalTag(tags.get('chad'), 'sf32', 8 + 9 * 4);
  const copyright = tags.get('cprt');
  if (!isD50(illuminant) || whitePoint === null || adaptation === null || (copyright && copyright.length < 8)) return undefined;
  const source = { header: b.subarray(0, HEADER_SIZE), major, whitePoint: whitePoint ?? xyzTag(D50), adaptation, copyright, description: descriptionText(tags.get('desc')) };
  return { tags, illuminant, source };
}

/** Each tag's data by signature; undefined for a table that runs past the profile, a tag inside the header or table, or a signature twice. */
function readTagTable(b: Uint8Array): Map<string, Uint8Array> | undefined {
  const count = u32be(b, HEADER_SIZE);
  const tableEnd = HEADER_SIZE + 4 + TAG_ENTRY_SIZE * count;
  if (tableEnd > b.length) return undefined;
  const tags = new Map<string, Uint8Array>();
  for (let k = 0; k < count; k++) {
    const entry = HEADER_SIZE + 4 + TAG_ENTRY_SIZE * k;
    const sig = text(b, entry, 4);
    const offset = u32be(b, entry + 4);
    const size = u32be(b, entry + 8);
    if (tags.has(sig) || offset < tableEnd || offset + size > b.length) return undefined;
    tags.set(sig, b.subarray(offset, offset + size));
  }
  return tags;
}

/** Parameters per parametricCurveType function type 0–4 [10.18, Table 68]. */
const PARA_PARAMETERS = [1, 3, 4, 5, 7];

/**
 * The grey tone curve tag, bit for bit: a `curv` (v2 and v4 [10.6]) or a
 * `para` (v4 only [10.18]; a v2 profile cannot carry one, and its RGB copy
 * would be as invalid); undefined for another type or a size that does not
 * hold the curve.
 */
export function toneCurve(tag: Uint8Array, major: number): Uint8Array | undefined {
  if (tag.length < 12) return undefined;
  const type = text(tag, 0, 4);
  const length = type === 'curv' ? 12 + 2 * u32be(tag, 8) : type === 'para' && major >= 4 ? paraLength(u16be(tag, 8)) : undefined;
  return length !== undefined && length <= tag.length ? tag : undefined;
}

function paraLength(functionType: number): number | undefined {
  const parameters = PARA_PARAMETERS[functionType];
  return parameters === undefined ? undefined : 12 + 4 * parameters;
}

/** A tag of a fixed-size type, exactly that size; undefined when absent, null when present but not that. */
export function optionalTag(tag: Uint8Array | undefined, type: string, size: number): Uint8Array | undefined | null {
  if (!tag) return undefined;
  return tag.length >= size && text(tag, 0, 4) === type ? tag.subarray(0, size) : null;
}

/** The PCS illuminant as ICC encodes D50 (0.9642, 1.0, 0.8249 [7.2.16]), s15Fixed16. */
const D50: Xyz = [0xf6d6, 0x10000, 0xd32d];
/** How far (in 1/65536) an illuminant may round away from that encoding and still be D50. */
const D50_TOLERANCE = 8;

/** ICC requires a D50 PCS illuminant, and CMMs map grey to D50 whatever the header says: colorants summing to another would shift the tones. */
function isD50(xyz: Xyz): boolean {
  return xyz.every((v, i) => Math.abs(v - D50[i]!) <= D50_TOLERANCE);
}

/** The grey profile's name, for the RGB one's: a v2 `desc` textDescriptionType's ASCII, or the first `mluc` record (either type, as v2 profiles from some tools carry mluc). */
function descriptionText(tag: Uint8Array | undefined): string | undefined {
  if (!tag || tag.length < 12) return undefined;
  const type = text(tag, 0, 4);
  let name: string | undefined;
  if (type === 'desc') {
    const count = u32be(tag, 8);
    if (12 + count <= tag.length) name = text(tag, 12, Math.min(count, MAX_NAME_BYTES));
  } else if (type === 'mluc' && u32be(tag, 8) > 0 && tag.length >= 28) {
    const length = u32be(tag, 20);
    const offset = u32be(tag, 24);
    if (offset + length <= tag.length) name = utf16be(tag.subarray(offset, offset + Math.min(length, 2 * MAX_NAME_BYTES)));
  }
  // eslint-disable-next-line no-control-regex -- control characters (the terminating NUL among them) are what is removed
  const clean = name?.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return clean ? clean.slice(0, MAX_NAME_LENGTH) : undefined;
}

/** Enough of a grey profile's name to recognise it in the RGB one's. */
const MAX_NAME_LENGTH = 80;
const MAX_NAME_BYTES = 256;

/**
 * The sRGB colorants [IEC 61966-2-1: primaries (0.64, 0.33), (0.30, 0.60),
 * (0.15, 0.06), white (0.3127, 0.3290)] adapted to the encoded D50 with the
 * Bradford transform, rounded to s15Fixed16: r 0.43604 0.22248 0.01392,
 * g 0.38511 0.71690 0.09707, b 0.14305 0.06061 0.71392 (within 1.2e-4 of
 * the sRGB IEC61966-2.1 profile's, whose sums miss D50 by up to 1.8e-4).
 * These sum to 0xF6D6 0x10000 0xD32C; {@link colorants} puts the rest on blue.
 */
const SRGB_D50 = {
  r: [28576, 14581, 912],
  g: [25239, 46983, 6361],
  b: [9375, 3972, 46787],
} as const;

/** The colorants, blue's rounding adjusted so that each of X, Y, Z sums to the header's illuminant exactly (for the usual encoding: blue Z + 1). */
function colorants(illuminant: Xyz): { r: Xyz; g: Xyz; b: Xyz } {
  const { r, g, b } = SRGB_D50;
  const blue = b.map((v, i) => v + illuminant[i]! - (r[i]! + g[i]! + v)) as Xyz;
  return { r: [...r], g: [...g], b: blue };
}

export interface Tag {
  signatures: string[];
  data: Uint8Array;
}

/** Tags in the order of a matrix/TRC display profile [8.4.3]; the three TRCs as one shared element. */
function writeRgbProfile(grey: GreyProfile): Uint8Array {
  const { r, g, b } = colorants(grey.illuminant);
  const name = grey.description ? `RGB for ${grey.description} (greyscale data as RGB)` : 'RGB for a grey profile (greyscale data as RGB)';
  return derivedProfile(grey, 'RGB ', name, [
    { signatures: ['rXYZ'], data: xyzTag(r) },
    { signatures: ['gXYZ'], data: xyzTag(g) },
    { signatures: ['bXYZ'], data: xyzTag(b) },
    { signatures: ['rTRC', 'gTRC', 'bTRC'], data: grey.trc },
  ]);
}

/**
 * A display profile of `space` made from `source`: the description `name`,
 * the source's copyright (or a note that it had none), white point and
 * chromatic adaptation, then the colour space's own `tags`.
 */
export function derivedProfile(source: SourceProfile, space: 'RGB ' | 'GRAY', name: string, tags: Tag[]): Uint8Array {
  const v4 = source.major >= 4;
  return assemble(displayHeader(source.header, space), [
    { signatures: ['desc'], data: v4 ? mlucTag(name) : textDescriptionTag(name) },
    { signatures: ['cprt'], data: source.copyright ?? (v4 ? mlucTag(NO_COPYRIGHT) : textTag(NO_COPYRIGHT)) },
    { signatures: ['wtpt'], data: source.whitePoint },
    ...(source.adaptation ? [{ signatures: ['chad'], data: source.adaptation }] : []),
    ...tags,
  ]);
}

const NO_COPYRIGHT = 'No copyright information (from a profile without any)';

/**
 * The source header made a display profile of `space`: version, date,
 * rendering intent and PCS illuminant kept; PCS XYZ; the CMM, platform,
 * flags, device and creator fields, which described the source profile's
 * origin, zeroed; profile ID zero, which v4 reads as "not computed" [7.2.18]
 * (and v2 as reserved).
 */
function displayHeader(source: Uint8Array, space: 'RGB ' | 'GRAY'): Uint8Array {
  const header = new Uint8Array(HEADER_SIZE);
  header.set(source.subarray(8, 12), 8);
  writeText(header, 12, `mntr${space}XYZ `);
  header.set(source.subarray(24, 36), 24);
  writeText(header, 36, 'acsp');
  header.set(source.subarray(64, 80), 64);
  return header;
}

/** Header, tag table, then each tag's data once, 4-byte aligned [7.1, 7.3]; the size field set last [7.2.2]. */
function assemble(header: Uint8Array, tags: Tag[]): Uint8Array {
  const entries = tags.reduce((n, tag) => n + tag.signatures.length, 0);
  let at = HEADER_SIZE + 4 + TAG_ENTRY_SIZE * entries;
  const placed = tags.map((tag) => {
    const offset = at;
    at = align4(at + tag.data.length);
    return { ...tag, offset };
  });
  const out = new Uint8Array(at);
  out.set(header);
  writeU32(out, HEADER_SIZE, entries);
  let entry = HEADER_SIZE + 4;
  for (const tag of placed) {
    out.set(tag.data, tag.offset);
    for (const signature of tag.signatures) {
      writeText(out, entry, signature);
      writeU32(out, entry + 4, tag.offset);
      writeU32(out, entry + 8, tag.data.length);
      entry += TAG_ENTRY_SIZE;
    }
  }
  writeU32(out, 0, out.length);
  return out;
}

export function xyzTag(xyz: Xyz): Uint8Array {
  const tag = new Uint8Array(20);
  writeText(tag, 0, 'XYZ ');
  xyz.forEach((v, i) => writeU32(tag, 8 + 4 * i, v >>> 0));
  return tag;
}

/** v2 textDescriptionType: the ASCII description (NUL-terminated), then empty Unicode and ScriptCode parts (67 bytes reserved) [ICC.1:2001-04 6.5.17]. */
function textDescriptionTag(description: string): Uint8Array {
  const ascii = asAscii(description);
  const tag = new Uint8Array(12 + ascii.length + 1 + 4 + 4 + 2 + 1 + 67);
  writeText(tag, 0, 'desc');
  writeU32(tag, 8, ascii.length + 1);
  writeText(tag, 12, ascii);
  return tag;
}

/** v2 textType: NUL-terminated ASCII [ICC.1:2001-04 textType]. */
function textTag(value: string): Uint8Array {
  const ascii = asAscii(value);
  const tag = new Uint8Array(8 + ascii.length + 1);
  writeText(tag, 0, 'text');
  writeText(tag, 8, ascii);
  return tag;
}

/** v4 multiLocalizedUnicodeType with one en-US record, UTF-16BE [10.15]. */
function mlucTag(value: string): Uint8Array {
  const tag = new Uint8Array(28 + 2 * value.length);
  writeText(tag, 0, 'mluc');
  writeU32(tag, 8, 1);
  writeU32(tag, 12, 12);
  writeText(tag, 16, 'enUS');
  writeU32(tag, 20, 2 * value.length);
  writeU32(tag, 24, 28);
  for (let i = 0; i < value.length; i++) {
    tag[28 + 2 * i] = value.charCodeAt(i) >> 8;
    tag[29 + 2 * i] = value.charCodeAt(i) & 0xff;
  }
  return tag;
}

/** Printable ASCII only (a v2 description or text is 7-bit); anything else as '?'. */
function asAscii(value: string): string {
  return value.replace(/[^\x20-\x7e]/g, '?');
}

function align4(n: number): number {
  return (n + 3) & ~3;
}

function text(b: Uint8Array, at: number, length: number): string {
  return String.fromCharCode(...b.subarray(at, at + length));
}

function utf16be(b: Uint8Array): string {
  let value = '';
  for (let i = 0; i + 1 < b.length; i += 2) value += String.fromCharCode((b[i]! << 8) | b[i + 1]!);
  return value;
}

function writeText(b: Uint8Array, at: number, value: string): void {
  for (let i = 0; i < value.length; i++) b[at + i] = value.charCodeAt(i);
}

function writeU32(b: Uint8Array, at: number, value: number): void {
  b[at] = value >>> 24;
  b[at + 1] = (value >>> 16) & 0xff;
  b[at + 2] = (value >>> 8) & 0xff;
  b[at + 3] = value & 0xff;
}
