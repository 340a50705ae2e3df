/**
 * The documented input limits (Web API v2 "Limits"; colour container "Limits"),
 * checked while planning so an over-limit file is skipped with a reason instead
 * of being uploaded to fail.
 */
import { type BackendKind, formatBytes, IMAGE_SIZE_LIMITS, imageSizeIssue, INPUT_BYTE_LIMITS, type PfcParams } from '@pfc/core';
import type { MediaInfo } from './sniff';

/** Documented limits, in pixels and bytes. */
export const LIMITS = {
  ...IMAGE_SIZE_LIMITS,
  /** Videos: at most 5 GB (core's reading: binary, so no file the service takes is refused). */
  maxVideoBytes: INPUT_BYTE_LIMITS.video,
  /** Background removal: input below 30 MB. */
  maxBackgroundRemovalBytes: INPUT_BYTE_LIMITS.removeBackground,
  /** AI upscaling: input below 50 MB. */
  maxUpscaleBytes: INPUT_BYTE_LIMITS.upscale,
  /** AI upscaling: at least 64 px on the shorter side. */
  minUpscaleShortSide: 64,
} as const;

/** Whether a backend takes videos (only the hosted Web API does). */
export function acceptsVideo(kind: BackendKind | 'emulator'): boolean {
  return kind === 'web' || kind === 'emulator';
}

/**
 * Why a file cannot be corrected with these parameters on this backend, or
 * undefined when it can. `size` is in bytes.
 */
export function limitViolation(media: MediaInfo, size: number, params: PfcParams, backend: BackendKind | 'emulator' = 'web'): string | undefined {
  if (media.fileType === 'video') {
    if (!acceptsVideo(backend)) return `videos are corrected by the hosted Web API only, not by the ${backend} backend`;
    if (size > LIMITS.maxVideoBytes) return `video is ${formatBytes(size)}; the limit is 5 GB`;
    if (params.aiArt !== undefined) return 'aiArt applies to images only';
    return undefined;
  }
  if (media.components === 4) return 'CMYK JPEG; the service takes RGB or RGBA images';
  const { width, height } = media;
  if (width === undefined || height === undefined) return undefined; // header unreadable: let the service decide
  const sizeIssue = imageSizeIssue(width, height, backend);
  if (sizeIssue) return sizeIssue;
  if (params.removeBackground === true && size >= LIMITS.maxBackgroundRemovalBytes) {
    return `image is ${formatBytes(size)}; background removal takes inputs below 30 MB`;
  }
  if (upscales(params, width, height)) {
    if (size >= LIMITS.maxUpscaleBytes) return `image is ${formatBytes(size)}; AI upscaling takes inputs below 50 MB`;
    if (Math.min(width, height) < LIMITS.minUpscaleShortSide) return `image is ${width}×${height} px; AI upscaling needs at least 64 px on the shorter side`;
  }
  return undefined;
}

/** Whether the resize parameters ask for a larger image than the input (AI upscaling). */
function upscales(p: PfcParams, width: number, height: number): boolean {
  if (p.width !== undefined) return p.width > width;
  if (p.height !== undefined) return p.height > height;
  if (p.long !== undefined) return p.long > Math.max(width, height);
  if (p.short !== undefined) return p.short > Math.min(width, height);
  if (p.scale !== undefined) return p.scale > 100;
  return false;
}
