/**
 * An ICC profile in a JPEG: APP2 segments, each "ICC_PROFILE\0", a sequence
 * number (from 1), the number of segments, then a chunk of the profile
 * [ICC.1:2010 B.4]. A profile over 64 KB takes several; decoders put them
 * together by sequence number, whatever the order in the file (as libjpeg's
 * and libvips's readers do). Pure: bytes in, bytes out.
 */

const SIGNATURE = 'ICC_PROFILE\0';
/** Signature, sequence number and count. */
const CHUNK_HEADER = SIGNATURE.length + 2;
/** The profile bytes one APP2 segment holds: 65535 (the largest segment length) − 2 (the length field) − 14. */
export const MAX_ICC_CHUNK = 65535 - 2 - CHUNK_HEADER;
const APP2 = 0xe2;

/** Whether an APP2 segment's body (after its length field) is a chunk of an ICC profile. */
export function isIccChunk(body: Uint8Array): boolean {
  return body.length >= SIGNATURE.length && [...SIGNATURE].every((c, i) => body[i] === c.charCodeAt(0));
}

/**
 * The profile from its chunks' segment bodies, in the file's order: ordered
 * by sequence number, which must run 1…count, each once, with one count
 * throughout; undefined for a set that is incomplete, repeated or malformed.
 */
export function joinIccChunks(bodies: Uint8Array[]): Uint8Array | undefined {
  const count = bodies[0]?.[SIGNATURE.length + 1];
  if (!count || bodies.length !== count) return undefined;
  const chunks = new Array<Uint8Array | undefined>(count);
  for (const body of bodies) {
    const sequence = body[SIGNATURE.length]!;
    if (body.length < CHUNK_HEADER || body[SIGNATURE.length + 1] !== count || sequence < 1 || sequence > count || chunks[sequence - 1]) return undefined;
    chunks[sequence - 1] = body.subarray(CHUNK_HEADER);
  }
  const profile = new Uint8Array(chunks.reduce((n, chunk) => n + chunk!.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    profile.set(chunk!, at);
    at += chunk!.length;
  }
  return profile;
}

/** `profile` as the APP2 segments (marker included) that carry it, numbered from 1; undefined if it needs more than 255. */
export function iccSegments(profile: Uint8Array): Uint8Array[] | undefined {
  const count = Math.max(1, Math.ceil(profile.length / MAX_ICC_CHUNK));
  if (count > 255) return undefined;
  return Array.from({ length: count }, (_, k) => {
    const chunk = profile.subarray(k * MAX_ICC_CHUNK, (k + 1) * MAX_ICC_CHUNK);
    const length = 2 + CHUNK_HEADER + chunk.length;
    const segment = new Uint8Array(2 + length);
    segment.set([0xff, APP2, length >> 8, length & 0xff]);
    segment.set([...SIGNATURE].map((c) => c.charCodeAt(0)), 4);
    segment.set([k + 1, count], 4 + SIGNATURE.length);
    segment.set(chunk, 4 + CHUNK_HEADER);
    return segment;
  });
}

/** Segments on their way to an output, with an ICC profile's APP2 chunks set aside (and where the first one was). */
export interface ProfiledSegments {
  segments: Uint8Array[];
  icc?: { at: number; chunks: Uint8Array[] };
}

/** Set a profile chunk's segment body aside until all are read (they may come in any order), keeping the place of the first. */
export function setIccChunkAside(headers: ProfiledSegments, body: Uint8Array): void {
  headers.icc ??= { at: headers.segments.length, chunks: [] };
  headers.icc.chunks.push(body);
}

/**
 * The profile set aside, once whole, `convert`ed and put back as segments
 * where the first chunk was; `headers` as they are without one; undefined
 * where the set is incomplete or malformed or `convert` refuses it.
 */
export function withConvertedProfile<T extends ProfiledSegments>(headers: T | undefined, convert: (profile: Uint8Array) => Uint8Array | undefined): T | undefined {
  if (!headers?.icc) return headers;
  const profile = joinIccChunks(headers.icc.chunks);
  const converted = profile && convert(profile);
  const segments = converted && iccSegments(converted);
  if (!segments) return undefined;
  return { ...headers, segments: [...headers.segments.slice(0, headers.icc.at), ...segments, ...headers.segments.slice(headers.icc.at)] };
}
