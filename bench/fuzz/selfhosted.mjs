/**
 * Fuzz cases for the emulated self-hosted containers: the colour-correction
 * container (PUT /pfc, GET /pfc/{key}, GET /version, GET /output/{file}) and
 * the background-removal container (Authorize, Status, SubmitImage with
 * malformed multipart, CheckImage, DownloadImage, RemoveImage).
 */
import { CONTAINER_PARAMS, CONTENT_TYPES, huge, query, SCALARS, TRAVERSAL } from './values.mjs';

/** Documented answers of the colour-correction container (spec errors table; emulator: 404/405 routing, 413 above 200 MB). */
export const CONTAINER_STATUSES = [200, 400, 404, 405, 413, 431, 503];
/**
 * Documented answers of the background-removal container (spec; emulator:
 * 403 before activation, 202 when a held DownloadImage times out, 405, 413).
 * 500 only where the document gives it a meaning: DownloadImage of a failed job.
 */
export const BGR_STATUSES = [200, 202, 400, 403, 404, 405, 413, 422, 431];
export const bgrAllows = (c, status) => BGR_STATUSES.includes(status) || (status === 500 && c.path.startsWith('/DownloadImage/'));

const keyish = (r, good) => r.pick([good, good.toUpperCase(), `${good}.jpg`, r.pick(TRAVERSAL), r.pick(TRAVERSAL), encodeURIComponent(r.pick(TRAVERSAL)), r.pick(SCALARS) || 'x', huge(400)]);

function imageBody(r, state) {
  const roll = r.next();
  if (roll < 0.2) return Buffer.alloc(0);
  if (roll < 0.45) return r.bytes(r.int(1, 3000));
  if (roll < 0.7) return state.jpeg.subarray(0, r.int(2, state.jpeg.length));
  if (roll < 0.8) return state.png;
  return state.jpeg;
}

export function containerCase(r, state) {
  const kind = r.pick(['put', 'put', 'correct', 'correct', 'correct', 'version', 'output', 'method', 'truncate']);
  switch (kind) {
    case 'put': {
      const type = r.pick(CONTENT_TYPES);
      return { kind, method: 'PUT', path: r.pick(['/pfc', '/pfc', '/pfc/', `/pfc/${r.pick(TRAVERSAL)}`]), headers: type === undefined ? {} : { 'content-type': type }, body: imageBody(r, state) };
    }
    case 'correct': {
      const pairs = [];
      for (let i = r.int(0, 5); i > 0; i--) {
        const name = r.pick(CONTAINER_PARAMS);
        const v = name === 'preset' || name === 'outputColorSpace' ? r.pick([...TRAVERSAL, 'srgb', 'original', 'missing']) : r.pick(SCALARS);
        pairs.push([name, v, r.chance(0.2)]);
      }
      return { kind, method: 'GET', path: `/pfc/${keyish(r, state.imageKey)}${query(pairs)}`, headers: {} };
    }
    case 'version':
      return { kind, method: r.pick(['GET', 'POST', 'HEAD']), path: `/version${r.pick(['', '/', '?x=1', `/${r.pick(TRAVERSAL)}`])}`, headers: {} };
    case 'output':
      return { kind, method: 'GET', path: `/output/${r.chance(0.3) ? state.outputName : r.pick(TRAVERSAL)}`, headers: {} };
    case 'method':
      return { kind, method: r.pick(['DELETE', 'PATCH', 'POST', 'OPTIONS', 'FOO']), path: r.pick(['/pfc', `/pfc/${state.imageKey}`, '/', '/input/', '/presets/']), headers: {} };
    default:
      return { kind, method: 'PUT', path: '/pfc', headers: { 'content-type': 'image/jpeg' }, body: state.jpeg, declaredLength: state.jpeg.length + r.int(1, 500), truncate: true };
  }
}

/** A multipart/form-data body, well formed or broken in one of many ways. */
function multipart(r, state) {
  const boundary = r.pick(['b0undary', 'x', '----WebKitFormBoundary7MA4YWxkTrZu0gW', huge(200)]);
  const file = r.chance(0.7) ? imageBody(r, state) : state.jpeg;
  const filename = r.pick(['photo.jpg', 'a.png', ...TRAVERSAL, '', 'x"; name="evil', 'ü.jpg']);
  const parts = [];
  if (r.chance(0.85)) parts.push(Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${r.pick(['file', 'file', 'File', 'image', ''])}"; filename="${filename}"\r\nContent-Type: ${r.pick(['image/jpeg', 'image/png', 'text/plain', ''])}\r\n\r\n`), file, Buffer.from('\r\n')]));
  if (r.chance(0.4)) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="mode"\r\n\r\n${r.pick(['portrait', 'general', ...SCALARS])}\r\n`));
  if (r.chance(0.3)) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="preprocessing_config"\r\n\r\n${r.pick(['', '{}', '{', '[1]', '{"a":', huge(5000)])}\r\n`));
  let bytes = Buffer.concat([...parts, Buffer.from(r.chance(0.85) ? `--${boundary}--\r\n` : '')]);
  const breakage = r.next();
  if (breakage < 0.1) bytes = bytes.subarray(0, r.int(0, bytes.length)); // truncated
  else if (breakage < 0.15) bytes = Buffer.from(bytes.toString('latin1').replace(/\r\n/g, '\n'), 'latin1'); // bare LF
  else if (breakage < 0.2) bytes = r.bytes(r.int(0, 2000)); // garbage
  const type = r.pick([`multipart/form-data; boundary=${boundary}`, `multipart/form-data; boundary=${boundary}`, `multipart/form-data; boundary=${boundary}`, 'multipart/form-data', `multipart/form-data; boundary="${boundary}"`, 'application/json', 'image/jpeg', undefined, `multipart/form-data; boundary=wrong`]);
  return { headers: type === undefined ? {} : { 'content-type': type }, body: bytes };
}

export function bgrCase(r, state) {
  const kind = r.pick(['authorize', 'status', 'submit', 'submit', 'submit', 'check', 'download', 'remove', 'method', 'truncate']);
  const id = () => keyish(r, state.processId);
  switch (kind) {
    case 'authorize':
      // Never deactivate the instance for good: a wrong key answers Unlicensed; keep most with the right key.
      return { kind, method: 'GET', path: `/Authorize/${r.chance(0.6) ? state.licenseKey : r.pick([...TRAVERSAL, '', ' ', huge(3000)])}`, headers: {} };
    case 'status':
      return { kind, method: r.pick(['GET', 'POST']), path: `/Status${r.pick(['', '/', '?x=1'])}`, headers: {} };
    case 'submit': {
      const m = multipart(r, state);
      const pairs = [['preprocessing', r.pick(SCALARS)], ['postprocessing', r.pick(SCALARS)]].filter(() => r.chance(0.4));
      return { kind, method: 'POST', path: `/SubmitImage${query(pairs)}`, headers: m.headers, body: m.body };
    }
    case 'check':
      return { kind, method: 'GET', path: `/CheckImage/${id()}`, headers: {} };
    case 'download':
      return { kind, method: 'GET', path: `/DownloadImage/${id()}`, headers: {} };
    case 'remove':
      // Remove only junk ids: removing the shared job would turn later cases into 404s only.
      return { kind, method: 'DELETE', path: `/RemoveImage/${r.pick([...TRAVERSAL, 'x', '00000000-0000-0000-0000-000000000000'])}`, headers: {} };
    case 'method':
      return { kind, method: r.pick(['PUT', 'PATCH', 'DELETE', 'GET']), path: r.pick(['/SubmitImage', '/Authorize', '/CheckImage', '/', `/DownloadImage/${state.processId}/x`]), headers: {} };
    default: {
      const m = multipart(r, state);
      return { kind, method: 'POST', path: '/SubmitImage', headers: m.headers, body: m.body, declaredLength: m.body.length + r.int(1, 500), truncate: true };
    }
  }
}
