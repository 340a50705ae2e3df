/**
 * jpeg-js's decoder on its own path (the encoder has its own, see
 * `jpeg-js-encoder.d.ts`). Same signature as `decode` in jpeg-js's typings.
 */
declare module 'jpeg-js/lib/decoder.js' {
  function decode(
    jpegData: Uint8Array | ArrayBuffer,
    opts: {
      useTArray: true;
      colorTransform?: boolean;
      formatAsRGBA?: boolean;
      tolerantDecoding?: boolean;
      maxResolutionInMP?: number;
      maxMemoryUsageInMB?: number;
    },
  ): { width: number; height: number; data: Uint8Array };
  export = decode;
}
