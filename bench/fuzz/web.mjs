/**
 * Fuzz cases for the emulated Web API v2. Cases use the state set up before
 * fuzzing (a real fileKey, a signed upload address, a preset, a finished
 * job) so malformed values reach the deep paths, not only the 404s.
 */
import { CONTENT_TYPES, huge, query, SCALARS, TRAVERSAL, WEB_PARAMS } from './values.mjs';

/** Answers the Web API emulator documents (README "Choices": errors table, routes, CORS preflight). */
// 411 and 501: the strict pre-signed storage's answers to a PUT without a length / a chunked one.
export const WEB_STATUSES = [200, 204, 302, 400, 401, 403, 404, 405, 409, 410, 411, 413, 431, 501];

/** A value for a parameter: mostly malformed, sometimes valid, so combinations reach the rules. */
function value(r, state, name) {
  const roll = r.next();
  if (roll < 0.45) return [r.pick(SCALARS), false];
  if (roll < 0.6) return [r.pick(TRAVERSAL), r.chance(0.5)];
  if (roll < 0.65) return [huge(r.pick([1000, 8000, 20000])), false];
  if (name === 'fileKey' || name === 'bgFileKey' || name === 'aiArtReferenceFileKey') return [r.pick([state.fileKey, state.fileKey.toUpperCase(), `${state.fileKey}x`, state.presetId]), false];
  if (name === 'preset') return [r.pick(['Universal', 'Pro', 'School and Sports', 'none', state.presetName, 'nope']), false];
  return [String(r.int(-5, 12000)), false];
}

function pfcQuery(r, state) {
  const pairs = [];
  if (r.chance(0.85)) pairs.push(['fileKey', state.fileKey]);
  const n = r.int(0, 6);
  for (let i = 0; i < n; i++) {
    const name = r.chance(0.95) ? r.pick(WEB_PARAMS) : r.string(r.int(1, 12));
    const [v, raw] = value(r, state, name);
    pairs.push([name, v, raw]);
  }
  return query(pairs);
}

const keyHeaders = (r, state) => {
  const roll = r.next();
  if (roll < 0.75) return { 'x-api-key': state.apiKey };
  if (roll < 0.85) return {};
  if (roll < 0.92) return { 'x-api-key': r.pick(['', ' ', 'wrong', huge(5000), state.apiKey.toUpperCase()]) };
  return { 'X-API-KEY': state.apiKey, 'x-api-key ': 'dup' };
};

/** Pre-signed address of the state's ticket with its query mangled. */
function signedPath(r, state) {
  const u = new URL(state.uploadUrl);
  const roll = r.next();
  if (roll < 0.3) return u.pathname + u.search;
  if (roll < 0.45) u.searchParams.set('signature', r.pick(SCALARS));
  else if (roll < 0.6) u.searchParams.set('expires', r.pick(['0', '-1', '1e20', 'x', String(Date.now() / 1000 + 1e9)]));
  else if (roll < 0.7) u.searchParams.delete(r.pick(['signature', 'expires']));
  else if (roll < 0.85) return `${u.pathname.replace(/[^/]+$/, encodeURIComponent(r.pick(TRAVERSAL)))}${u.search}`;
  else return `/v2/uploads/${r.pick(TRAVERSAL)}${u.search}`;
  return u.pathname + u.search;
}

function body(r, state) {
  const roll = r.next();
  if (roll < 0.25) return Buffer.alloc(0);
  if (roll < 0.5) return r.bytes(r.int(1, 4096));
  if (roll < 0.7) return state.jpeg.subarray(0, r.int(1, state.jpeg.length));
  if (roll < 0.85) return state.jpeg;
  return Buffer.from(r.pick(['{', '{"name":', 'null', '[]', '"x"', '{"name":{"a":1}}', `{"name":"${huge(300)}"}`, '{"name":"ok","description":5}']));
}

/** One case; `r` is the seeded RNG. */
export function webCase(r, state) {
  const kind = r.pick(['upload', 'put', 'put', 'pfc', 'pfc', 'pfc', 'status', 'results', 'presets', 'presetsCreate', 'presetOne', 'presetPut', 'method', 'path', 'truncate', 'headers']);
  const v2 = '/v2';
  switch (kind) {
    case 'upload':
      return { kind, method: 'GET', path: `${v2}/upload${query(r.chance(0.7) ? [['fileType', ...value(r, state, 'fileType')]] : [])}`, headers: keyHeaders(r, state) };
    case 'put':
      return { kind, method: 'PUT', path: signedPath(r, state), headers: ct(r), body: body(r, state) };
    case 'pfc':
      return { kind, method: 'GET', path: `${v2}/pfc${pfcQuery(r, state)}`, headers: keyHeaders(r, state) };
    case 'status': {
      const id = r.pick([state.jobId, state.jobId.toUpperCase(), r.pick(TRAVERSAL), r.pick(SCALARS) || 'x', huge(3000)]);
      return { kind, method: r.pick(['GET', 'GET', 'HEAD', 'DELETE']), path: `${v2}/status/${r.chance(0.5) ? encodeURIComponent(id) : id}${query(r.chance(0.5) ? [['noRedirect', r.pick(SCALARS)]] : [])}`, headers: {} };
    }
    case 'results':
      return { kind, method: r.pick(['GET', 'HEAD']), path: r.chance(0.3) ? state.resultPath : `${v2}/results/${r.pick(TRAVERSAL)}${r.pick(['', '.jpg', '.png', '.json'])}`, headers: {} };
    case 'presets':
      return { kind, method: 'GET', path: `${v2}/presets${query([['limit', ...value(r, state, 'limit')], ['offset', ...value(r, state, 'offset')]].filter(() => r.chance(0.7)))}`, headers: keyHeaders(r, state) };
    case 'presetsCreate':
      return { kind, method: 'POST', path: `${v2}/presets${r.pick(['', '/'])}`, headers: { ...keyHeaders(r, state), ...ct(r, 'application/json') }, body: body(r, state) };
    case 'presetOne': {
      const id = r.pick([state.presetId, r.pick(TRAVERSAL), `${state.presetId}/file`, 'x']);
      return { kind, method: r.pick(['GET', 'GET', 'DELETE', 'PUT']), path: `${v2}/presets/${id}${r.chance(0.3) ? '/file' : ''}`, headers: keyHeaders(r, state) };
    }
    case 'presetPut':
      return { kind, method: 'PUT', path: `${v2}/preset-uploads/${r.pick([state.presetId, ...TRAVERSAL])}?expires=${r.pick(SCALARS)}&signature=${r.pick(SCALARS)}`, headers: ct(r), body: body(r, state) };
    case 'method':
      return { kind, method: r.pick(['PATCH', 'TRACE', 'OPTIONS', 'FOO', 'CONNECT', 'PROPFIND']), path: r.pick([`${v2}/pfc`, `${v2}/upload`, `${v2}/presets`, '/', '*']), headers: keyHeaders(r, state) };
    case 'path':
      return { kind, method: 'GET', path: r.pick([`/${r.pick(TRAVERSAL)}`, `${v2}/${r.pick(TRAVERSAL)}`, `${v2}//pfc`, `${v2}/pfc/`, `/v1/pfc`, `/V2/PFC`, `${v2}/%`, `${v2}/upload#frag`, `${v2}/upload?${huge(9000)}`]), headers: keyHeaders(r, state) };
    case 'truncate':
      return { kind, method: r.pick(['PUT', 'POST']), path: r.chance(0.6) ? new URL(state.uploadUrl).pathname + new URL(state.uploadUrl).search : `${v2}/presets/`, headers: { ...keyHeaders(r, state), ...ct(r) }, body: state.jpeg, declaredLength: state.jpeg.length + r.int(0, 1000), truncate: true };
    default:
      // Header trouble: oversized, many, odd content lengths.
      return {
        kind,
        method: 'GET',
        path: `${v2}/upload`,
        headers: r.pick([
          { 'x-api-key': state.apiKey, 'x-big': huge(20_000) },
          { 'x-api-key': state.apiKey, ...Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`x-h${i}`, 'v'])) },
          { 'x-api-key': state.apiKey, 'content-length': 'abc' },
          { 'x-api-key': state.apiKey, 'transfer-encoding': 'chunked, gzip' },
        ]),
      };
  }
}

/** A Content-Type header, right or wrong (or none). */
function ct(r, usual) {
  const t = r.chance(0.3) && usual ? usual : r.pick(CONTENT_TYPES);
  return t === undefined ? {} : { 'content-type': t };
}
