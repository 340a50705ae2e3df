/**
 * Input limits of the Web API v2 and the colour container (the documents'
 * "Limits" tables) that a client can check before an upload: the type, the
 * byte size and the pixel size, so a file the service would refuse is never sent.
 */
import type { BackendKind } from '../backend';
import { formatBytes } from '../format';
import type { ParamIssue, PfcParams } from './webapi-params';

/** Accepted input MIME types per `fileType`. */
export const INPUT_TYPES = {
  image: ['image/jpeg', 'image/png'],
  video: ['video/mp4', 'video/quicktime'],
} as const;

/**
 * Byte limits. The document says "5 GB", "below 50 MB", "below 30 MB" without
 * saying decimal or binary; the client rejects only what exceeds the larger
 * (binary) reading, so it never refuses a file the service would take.
 */
export const INPUT_BYTE_LIMITS = {
  /** Video: at most 5 GB. */
  video: 5 * 1024 ** 3,
  /** Background removal input: below 30 MB. */
  removeBackground: 30 * 1024 ** 2,
  /** AI upscaling input: below 50 MB (applies when the resize enlarges; not knowable before decoding). */
  upscale: 50 * 1024 ** 2,
} as const;

/** What is known about an input before it is sent. */
export interface InputFacts {
  fileType: 'image' | 'video';
  /** MIME type, when known. */
  contentType?: string | undefined;
  /** Size in bytes, when known. */
  size?: number | undefined;
}

/** Problems with an input that the service would refuse, named by the parameter `file`. */
export function checkInput(facts: InputFacts, params: PfcParams): ParamIssue[] {
  const issues: ParamIssue[] = [];
  const type = facts.contentType?.split(';')[0]?.trim().toLowerCase();
  const allowed: readonly string[] = INPUT_TYPES[facts.fileType];
  if (type && type !== 'application/octet-stream' && !allowed.includes(type)) {
    issues.push({ param: 'file', message: `a ${facts.fileType} input must be ${allowed.join(' or ')} (got ${type})` });
  }
  const size = facts.size;
  if (size !== undefined) {
    if (facts.fileType === 'video' && size > INPUT_BYTE_LIMITS.video) {
      issues.push({ param: 'file', message: `a video must be at most 5 GB (got ${formatBytes(size)})` });
    }
    if (facts.fileType === 'image' && params.removeBackground === true && size >= INPUT_BYTE_LIMITS.removeBackground) {
      issues.push({ param: 'file', message: `background removal needs an input below 30 MB (got ${formatBytes(size)})` });
    }
  }
  return issues;
}

/** Pixel limits of colour correction, retouching, creative filters and auto cropping. */
export const IMAGE_SIZE_LIMITS = {
  /**
   * The shorter side, pixels. The Web API takes images "larger than 32x32", the colour container
   * rejects "a short side under 32", so 32 itself is refused only on the Web API.
   */
  minSide: 32,
  /** The longer side at most, pixels. */
  maxLongSide: 100_000,
  /**
   * The aspect ratio (long / short) must stay below this on the Web API. The colour container takes
   * wider images and only disables its beautify corrections above it (its "Limits" table).
   */
  maxAspect: 21,
  /** The pixel count must stay below this. */
  maxPixels: 200_000_000,
} as const;

/**
 * Why an image of this size would be refused for colour correction by this backend, or undefined.
 * The emulator is the Web API's stand-in, so it is held to the Web API's rule. The colour container
 * alone documents a wider image as taken (beautify off); its longer side and pixel count, which its
 * document leaves open, are held to the Web API's. The background-removal container documents no
 * size limit, so its kinds keep every Web API limit.
 */
export function imageSizeIssue(width: number, height: number, backend: BackendKind | 'emulator' = 'web'): string | undefined {
  const L = IMAGE_SIZE_LIMITS;
  const short = Math.min(width, height);
  const long = Math.max(width, height);
  const size = `image is ${width}×${height} px`;
  if (backend === 'web' || backend === 'emulator') {
    if (short <= L.minSide) return `${size}; the Web API needs more than ${L.minSide} px on each side`;
  } else if (short < L.minSide) {
    return `${size}; the shorter side must be at least ${L.minSide} px`;
  }
  if (long > L.maxLongSide) return `${size}; the longer side must be at most ${L.maxLongSide.toLocaleString('en-US')} px`;
  if (long / short >= L.maxAspect && backend !== 'container') return `${size}; the aspect ratio must be below ${L.maxAspect}:1`;
  if (width * height >= L.maxPixels) return `${size} (${Math.round((width * height) / 1e6)} MP); images must be below ${L.maxPixels / 1e6} MP`;
  return undefined;
}
