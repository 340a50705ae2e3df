/**
 * Malformed values for query strings, path segments, headers and bodies:
 * boundaries of the documented ranges, wrong types, path traversal, encoding
 * tricks, control characters, and very long strings.
 */

/** Path traversal and file-name tricks (as raw text; encoded variants included). */
export const TRAVERSAL = [
  '../../../../etc/passwd',
  '..%2f..%2f..%2fetc%2fpasswd',
  '..%252f..%252fetc%252fpasswd',
  '%2e%2e/%2e%2e/etc/hosts',
  '%2e%2e%2f%2e%2e%2fetc%2fhosts',
  '..\\..\\..\\windows\\win.ini',
  '..%5c..%5cboot.ini',
  '/etc/passwd',
  '%2fetc%2fpasswd',
  '....//....//etc/passwd',
  '.',
  '..',
  '%2e',
  '%2e%2e',
  'a/../../b',
  'file%00.jpg',
  'file\u0000.png',
  '~/.ssh/id_rsa',
  'CON',
  ' leading-space',
  'trailing-space ',
  'x'.repeat(300),
  '../canary.txt',
  '../../canary.txt',
  '..%2fcanary.txt',
  '..%2f..%2fcanary.txt',
];

/** Values that are wrong in type or at or beyond a boundary. */
export const SCALARS = [
  '', ' ', '0', '-1', '1', '31', '32', '33', '39', '40', '100', '101', '9999', '10000', '10001', '2147483648', '-2147483649',
  '1e3', '1e309', '-0', '0x20', '1.5', '32.0', 'NaN', 'Infinity', '-Infinity', 'null', 'undefined', 'true', 'false', 'TRUE',
  'yes', '[]', '{}', '[1,2]', '{"a":1}', '%', '%zz', '%00', '\u0000', '\u202e', '😀', 'é', '\r\n', '<script>', "'; DROP TABLE", '#ff00ff', '%23ff00ff',
  'jpg', 'png', 'JPEG', 'original', 'image', 'video', 'none', 'Universal', 'auto', 'general', 'smallDetails', 'soft', 'cartoon', '2k', '4k',
];

/** A very long value (tests caps on query and header sizes). */
export const huge = (n) => 'A'.repeat(n);

/** The documented `/pfc` parameters of the Web API (names only; values are fuzzed). */
export const WEB_PARAMS = [
  'fileKey', 'fileType', 'preset', 'cache', 'outputType', 'resize', 'width', 'height', 'long', 'short', 'scale', 'outputQuality',
  'autocrop', 'autocropDetectOnly', 'autocropSize', 'autocropX', 'autocropY', 'cropARW', 'cropARH', 'autocropTopHeadGap', 'autocropType',
  'skip', 'removeGlares', 'removeBlemish', 'removeBackground', 'bgColor', 'bgGenerativePrompt', 'bgFileKey', 'bgShadow', 'aiArt',
  'aiArtOutputSize', 'aiArtReferenceFileKey', 'preserveMetadata', 'updateThumbnail', 'includeDetectionData', 'noRedirect', 'unknownParam',
];

/** The colour-correction container's GET /pfc/{key} query parameters. */
export const CONTAINER_PARAMS = [
  'preset', 'outputType', 'outputQuality', 'outputColorSpace', 'width', 'height', 'long', 'short', 'scale', 'autocrop', 'skip',
  'skip-exif-software', 'preserveInputFileName', 'enable-composite', 'unknownParam',
];

/** Content types, right and wrong. */
export const CONTENT_TYPES = [
  undefined, '', 'image/jpeg', 'image/png', 'image/gif', 'application/json', 'text/plain', 'multipart/form-data', 'multipart/form-data; boundary=',
  'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'image/jpeg; charset=utf-8', 'IMAGE/PNG', 'application/octet-stream', 'video/mp4', ';;;',
];

/** Query-string encoding of a value (or the raw text when `raw`, to send malformed escapes). */
export function q(value, raw = false) {
  return raw ? String(value) : encodeURIComponent(String(value));
}

/** A query string from [name, value, raw?] triples (names may repeat). */
export function query(pairs) {
  const s = pairs.map(([k, v, raw]) => `${encodeURIComponent(k)}=${q(v, raw)}`).join('&');
  return s ? `?${s}` : '';
}
