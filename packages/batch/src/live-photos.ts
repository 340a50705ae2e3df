/**
 * Live Photos: an iPhone keeps the few seconds of motion around a photo as a QuickTime video of the same name
 * (IMG_0001.HEIC or .JPG beside IMG_0001.MOV), and exports them side by side. Met in a folder, such a clip is the
 * photo's, not a video the user means to correct (and pay for as one): it is left out. Given as an input itself,
 * it is corrected.
 */
import { extname } from 'node:path';

/** Extensions of the stills a Live Photo's clip goes with (HEIC, or JPEG with "Most Compatible"). */
const STILLS = new Set(['.heic', '.heif', '.jpg', '.jpeg']);

/** Extensions of the clips (an export's `.MOV`; `.mp4` from some converters). */
const CLIPS = new Set(['.mov', '.mp4']);

const stemOf = (name: string): string => name.slice(0, name.length - extname(name).length).toLowerCase();

/** For a folder's file names: the still each Live Photo clip among them goes with, by the clip's name. */
export function livePhotoStills(names: readonly string[]): Map<string, string> {
  const stills = new Map<string, string>();
  for (const name of names) if (STILLS.has(extname(name).toLowerCase())) stills.set(stemOf(name), name);
  const clips = new Map<string, string>();
  for (const name of names) {
    const still = CLIPS.has(extname(name).toLowerCase()) ? stills.get(stemOf(name)) : undefined;
    if (still !== undefined) clips.set(name, still);
  }
  return clips;
}

/** Why a Live Photo's clip is left out. */
export function livePhotoReason(still: string): string {
  return `the motion of the Live Photo ${still}, left out (it would be corrected and billed as a video); give this file itself as an input to correct it`;
}
