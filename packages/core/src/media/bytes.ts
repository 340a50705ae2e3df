/** Integers read from byte arrays, the one set every media reader here uses; a byte past the end reads as 0. */

export function u16be(b: Uint8Array, at: number): number {
  return ((b[at] ?? 0) << 8) | (b[at + 1] ?? 0);
}

export function u32be(b: Uint8Array, at: number): number {
  return u16be(b, at) * 0x10000 + u16be(b, at + 2);
}

export function i32be(b: Uint8Array, at: number): number {
  return u32be(b, at) | 0;
}

export function u16le(b: Uint8Array, at: number): number {
  return (b[at] ?? 0) | ((b[at + 1] ?? 0) << 8);
}

export function i32le(b: Uint8Array, at: number): number {
  return (u16le(b, at) + u16le(b, at + 2) * 0x10000) | 0;
}

/** Whether two byte arrays hold the same bytes. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
