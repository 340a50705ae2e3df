/**
 * Input limits of the Web API v2 (the document's "Limits" table) that can be
 * checked from what is known before an upload: the type and the byte size.
 * Pixel limits need the decoded image and are the service's (or emulator's) job.
 */
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

function formatBytes(n: number): string {
  return n >= 1024 ** 3 ? `${(n / 1024 ** 3).toFixed(2)} GiB` : `${(n / 1024 ** 2).toFixed(1)} MiB`;
}
