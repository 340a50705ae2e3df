/**
 * File type by content (magic bytes), never by what the client claims: the
 * upload's Content-Type and the `fileType` parameter are only compared with it.
 * The byte-level rules are core's `sniffMedia`, shared with every client host.
 */
import { sniffMedia } from '@pfc/core';

export type Sniffed =
  | { kind: 'image'; format: 'jpeg' | 'png'; supported: true }
  | { kind: 'image'; format: 'gif' | 'webp' | 'tiff' | 'bmp' | 'heif' | 'avif'; supported: false }
  | { kind: 'video'; format: 'mp4' | 'mov'; supported: true }
  | { kind: 'video'; format: 'avi' | 'webm' | 'mkv'; supported: false }
  | { kind: 'unknown' };

/** Identifies a file from its first bytes (64 are plenty). */
export function sniff(head: Uint8Array): Sniffed {
  const media = sniffMedia(head);
  // sniffMedia's kind/format/supported triples are exactly the members of Sniffed.
  return media ? ({ kind: media.kind, format: media.format, supported: media.supported } as Sniffed) : { kind: 'unknown' };
}

/** How a sniffed type is named in status texts. */
export function describeSniffed(s: Sniffed): string {
  return s.kind === 'unknown' ? 'not an image or video this service reads' : `${s.format.toUpperCase()} ${s.kind}`;
}
