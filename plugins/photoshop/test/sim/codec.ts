/**
 * Image encoding for the simulated host, injected because it differs by
 * runtime: sharp (libjpeg, libpng) under Node, the browser's own codecs in
 * Chromium. Photoshop does the same work natively.
 */
export interface SimCodec {
  /** Encode 8-bit RGB as JPEG (what `imaging.encodeImageData` returns). */
  encodeJpeg(rgb: Uint8Array, width: number, height: number): Promise<Uint8Array>;
  /** Decode a JPEG or PNG file to 8-bit straight RGBA (what `app.open` does). */
  decode(bytes: Uint8Array): Promise<{ width: number; height: number; data: Uint8Array }>;
}
