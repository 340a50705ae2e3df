/**
 * The reverse of rgbProfileForGrey (grey-icc.ts): a grey ICC profile under
 * which the grey value v shows as an RGB matrix/TRC profile shows
 * R = G = B = v, for a greyscale image that came back from the service as
 * RGB (ycc-jpeg-grey.ts) with the profile it was given — the service's sRGB,
 * or the RGB profile made for its grey one.
 *
 * Why it holds. The RGB profile maps R = G = B = v to (rXYZ + gXYZ + bXYZ) ×
 * TRC(v) when its three curves are one [ICC.1:2010 8.4.3, F.3]; a monochrome
 * profile maps v to the PCS white (D50) × grayTRC(v) [8.3.4, 8.4.4, F.2]. So
 * with grayTRC = that curve the two agree wherever the colorants sum to D50:
 * exactly for rgbProfileForGrey's and libvips's sRGB (which sharp writes),
 * within 2e-4 for the sRGB IEC61966-2.1 profile, whose rounded colorants
 * miss D50 by that much (a twentieth of an 8-bit level at white).
 *
 * Pure: bytes in, bytes out. References in brackets are to ICC.1:2010 (v4).
 */

import { i32be, sameBytes } from './bytes';
import { derivedProfile, optionalTag, readDisplayable, type SourceProfile, toneCurve, type Xyz } from './grey-icc';

/**
 * The grey display (`mntr`) profile equivalent, for R = G = B data, to the
 * RGB matrix/TRC profile `rgb`: same version, rendering intent, PCS
 * illuminant, white point, chromatic adaptation and copyright; the RGB
 * profile's one tone curve as `kTRC`. Undefined — never a throw — for
 * anything else: not ICC v2 or v4, not RGB with an XYZ PCS, a device link,
 * abstract or named-colour profile, a LUT (`A2Bx`/`D2Bx`, which would take
 * precedence over the curves), three curves that are not the same bytes,
 * colorants that do not sum to D50 within 0.002 (a neutral that would not
 * be neutral), a PCS illuminant other than D50, a malformed tag table.
 *
 * @example
 * const grey = greyProfileForRgb(resultProfile); // embed with the R = G = B samples as grey
 */
export function greyProfileForRgb(rgb: Uint8Array): Uint8Array | undefined {
  try {
    const source = readRgbProfile(rgb);
    return source && writeGreyProfile(source);
  } catch {
    return undefined;
  }
}

/** Classes with a matrix/TRC model [8.3.3, 8.4.3, 8.5.2, 8.6]: input, display, output, colour space. */
const MATRIX_CLASSES = new Set(['scnr', 'mntr', 'prtr', 'spac']);
/** How far (in 1/65536) the colorants' sum may be from the PCS illuminant: 0.002, under half a level of 8-bit grey. */
const NEUTRAL_TOLERANCE = 131;

function readRgbProfile(b: Uint8Array): SourceProfile | undefined {
  const read = readDisplayable(b, 'RGB ', MATRIX_CLASSES);
  const trc = read && sharedCurve(read.tags, read.source.major);
  return trc && neutralSumsToWhite(read!.tags, read!.illuminant) ? { ...read!.source, trc } : undefined;
}

/** The one tone curve of rTRC, gTRC and bTRC, when they are the same bytes (as sRGB's and rgbProfileForGrey's share one tag). */
function sharedCurve(tags: Map<string, Uint8Array>, major: number): Uint8Array | undefined {
  const [r, g, b] = ['rTRC', 'gTRC', 'bTRC'].map((sig) => tags.get(sig));
  const curve = r && toneCurve(r, major);
  return curve && g && b && sameBytes(r, g) && sameBytes(r, b) ? curve : undefined;
}

/** rXYZ + gXYZ + bXYZ is the PCS illuminant, within {@link NEUTRAL_TOLERANCE}: R = G = B is then the grey axis. */
function neutralSumsToWhite(tags: Map<string, Uint8Array>, illuminant: Xyz): boolean {
  const colorants = ['rXYZ', 'gXYZ', 'bXYZ'].map((sig) => optionalTag(tags.get(sig), 'XYZ ', 20));
  if (colorants.some((tag) => !tag)) return false;
  return illuminant.every((white, i) => Math.abs(colorants.reduce((sum, tag) => sum + i32be(tag!, 8 + 4 * i), 0) - white) <= NEUTRAL_TOLERANCE);
}

/** A monochrome display profile [8.4.4]: its one curve, kTRC. */
function writeGreyProfile(rgb: SourceProfile): Uint8Array {
  return derivedProfile(rgb, 'GRAY', greyName(rgb.description), [{ signatures: ['kTRC'], data: rgb.trc }]);
}

/** What rgbProfileForGrey calls the RGB profile it makes of a grey one. */
const FROM_GREY = /^RGB for (.+) \(greyscale data as RGB\)$/;

/** The grey profile's own name when the RGB one was made from it; otherwise a name saying where it comes from. */
function greyName(description: string | undefined): string {
  const original = description && FROM_GREY.exec(description)?.[1];
  if (original && original !== 'a grey profile') return original;
  return description ? `Grey for ${description} (R = G = B data as grey)` : 'Grey for an RGB profile (R = G = B data as grey)';
}

