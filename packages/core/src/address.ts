/**
 * Absolute http(s) addresses handled as strings, without the WHATWG `URL` and
 * `URLSearchParams` classes. Core runs in UXP too, which documents neither
 * constructor: `URLSearchParams` came with UXP 9.1 (Photoshop 27.4, "Added
 * `URLSearchParams` module to UXP", AdobeDocs/uxp-photoshop
 * `ps-reference/changelog/index.md`), and `URL` appears only as
 * `URL.createObjectURL` (`uxp-api/reference-js/global-members/image-blob`).
 * Only what the clients need: an address split into its parts, with the
 * origin as `URL.origin` gives it (scheme and host in lower case, no default
 * port), and query parameters appended or replaced, the rest of a (possibly
 * signed) address left byte for byte as it came.
 */

/** The parts of an absolute address, named as `URL`'s properties. */
export interface HttpUrl {
  /** The whole address: scheme and host in lower case, no default port, `/` for an empty path. */
  readonly href: string;
  /** `https:` */
  readonly protocol: string;
  /** Host name and the port when it is not the scheme's default: `api.example.com:8443`. */
  readonly host: string;
  readonly hostname: string;
  /** The port when it is not the scheme's default, else ''. */
  readonly port: string;
  /** `https://api.example.com:8443` */
  readonly origin: string;
  /** `/v2/status/abc`, as it came (still percent-encoded). */
  readonly pathname: string;
  /** `?a=1&b=2`, or '' when there is none. */
  readonly search: string;
  readonly hash: string;
}

/** Query parameters: a record (entries whose value is undefined are left out) or name-value pairs in order. */
export type QueryParams = Record<string, string | number | boolean | undefined> | readonly (readonly [string, string])[];

const DEFAULT_PORT: Readonly<Record<string, string>> = { 'http:': '80', 'https:': '443', 'ws:': '80', 'wss:': '443' };
/** scheme://authority path ?query #fragment (RFC 3986 §3), after `prepare`. */
const ABSOLUTE = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/is;
/** host (a name, an IPv4 address or a bracketed IPv6 one) and an optional port. */
const HOST_PORT = /^(\[[0-9a-f:.]+\]|[^\s:@[\]]+)(?::(\d{0,5}))?$/i;
/**
 * What URL's parser percent-encodes in each part (WHATWG URL §1.3, percent-encode sets, for the special
 * schemes): beyond the C0 controls and everything above U+007E, these.
 */
const PATH_SET = new Set(' "<>`{}');
const QUERY_SET = new Set(' "<>\'');
const FRAGMENT_SET = new Set(' "<>`');

/**
 * The parts of an absolute `http:`, `https:`, `ws:` or `wss:` address, written as URL writes them: spaces and
 * other characters URL escapes percent-encoded (a container's `corrected_url` naming "my photo.jpg" still
 * works), escapes already there left as they are.
 * @throws TypeError (as `new URL` does) when `text` is not one.
 * @example
 * parseUrl('HTTPS://API.Example.com:443/v2?x=1').origin // 'https://api.example.com'
 */
export function parseUrl(text: string): HttpUrl {
  const m = ABSOLUTE.exec(prepare(text));
  const protocol = m ? `${m[1]!.toLowerCase()}:` : '';
  const authority = m?.[2] ?? '';
  const at = authority.lastIndexOf('@');
  const hp = HOST_PORT.exec(authority.slice(at + 1));
  const portNumber = hp?.[2] ? Number(hp[2]) : undefined;
  if (!m || !(protocol in DEFAULT_PORT) || !hp || (portNumber !== undefined && portNumber > 65535)) throw new TypeError(`Invalid URL: ${text}`);
  const hostname = hp[1]!.toLowerCase();
  const port = portNumber === undefined || String(portNumber) === DEFAULT_PORT[protocol] ? '' : String(portNumber);
  const host = port ? `${hostname}:${port}` : hostname;
  const pathname = percentEncode(m[3] || '/', PATH_SET);
  const search = m[4] && m[4] !== '?' ? percentEncode(m[4], QUERY_SET) : '';
  const hash = m[5] && m[5] !== '#' ? percentEncode(m[5], FRAGMENT_SET) : '';
  const userinfo = at >= 0 ? authority.slice(0, at + 1) : '';
  return { href: `${protocol}//${userinfo}${host}${pathname}${search}${hash}`, protocol, host, hostname, port, origin: `${protocol}//${host}`, pathname, search, hash };
}

/**
 * `text` as URL's parser first reads it: without the C0 controls and spaces at its ends and without tabs and
 * line breaks anywhere (a pasted address, an env var), backslashes before the query read as slashes (the
 * special schemes' rule).
 */
function prepare(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) <= 0x20) start++;
  while (end > start && text.charCodeAt(end - 1) <= 0x20) end--;
  const clean = text.slice(start, end).replace(/[\t\n\r]/g, '');
  const q = clean.search(/[?#]/);
  const head = q < 0 ? clean : clean.slice(0, q);
  return head.replace(/\\/g, '/') + (q < 0 ? '' : clean.slice(q));
}

/** `part` with the C0 controls, everything above U+007E and the characters of `set` percent-encoded as UTF-8. */
function percentEncode(part: string, set: ReadonlySet<string>): string {
  let out = '';
  for (const ch of part) {
    const code = ch.codePointAt(0)!;
    if (code > 0x20 && code < 0x7f && !set.has(ch)) out += ch;
    else out += encodeCodePoint(ch);
  }
  return out;
}

function encodeCodePoint(ch: string): string {
  try {
    return encodeQueryPart(ch);
  } catch {
    // A lone surrogate: URL writes U+FFFD.
    return '%EF%BF%BD';
  }
}

/** Whether `text` is an absolute address with a scheme (`https://…`), not a path. */
export function isAbsoluteUrl(text: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(text);
}

/**
 * `url` with `params` added to its query. Parameters new to it are appended, leaving the query that was there byte
 * for byte (a pre-signed address's signature covers it); a parameter it has already is replaced, and then the
 * whole query is written afresh. Spaces go as `%20`, not `+` (the Web API's document writes `School%20and%20Sports`).
 * @example
 * withQuery(parseUrl('https://x.test/status/1?sig=a%2Fb'), { noRedirect: 'true' }).href
 * // 'https://x.test/status/1?sig=a%2Fb&noRedirect=true'
 */
export function withQuery(url: HttpUrl, params: QueryParams): HttpUrl {
  const added = queryPairs(params);
  if (added.length === 0) return url;
  const existing = url.search ? parseQuery(url.search) : [];
  const names = new Set(added.map(([k]) => k));
  const search = existing.some(([k]) => names.has(k))
    ? `?${encodeQuery([...mergePairs(existing, added)])}`
    : `${url.search ? `${url.search}&` : '?'}${encodeQuery(added)}`;
  return parseUrl(`${addressOf(url)}${url.pathname}${search}${url.hash}`);
}

/** `name=value&…`, each part percent-encoded as a form's (`URLSearchParams`'s), a space as `%20`. */
export function encodeQuery(pairs: Iterable<readonly [string, string]>): string {
  return [...pairs].map(([k, v]) => `${encodeQueryPart(k)}=${encodeQueryPart(v)}`).join('&');
}

/** The name-value pairs of a query (`?a=1&b=x+y` → [['a','1'],['b','x y']]), decoded as a form's. */
export function parseQuery(search: string): [string, string][] {
  const text = search.startsWith('?') ? search.slice(1) : search;
  if (text === '') return [];
  return text.split('&').filter((part) => part !== '').map((part) => {
    const eq = part.indexOf('=');
    const [k, v] = eq < 0 ? [part, ''] : [part.slice(0, eq), part.slice(eq + 1)];
    return [decodeQueryPart(k), decodeQueryPart(v)];
  });
}

/** The value of the first parameter `name` in a query, or undefined. */
export function queryValue(search: string, name: string): string | undefined {
  return parseQuery(search).find(([k]) => k === name)?.[1];
}

function queryPairs(params: QueryParams): [string, string][] {
  if (Array.isArray(params)) return (params as readonly (readonly [string, string])[]).map(([k, v]) => [k, v]);
  const out: [string, string][] = [];
  for (const [k, v] of Object.entries(params as Record<string, string | number | boolean | undefined>)) if (v !== undefined) out.push([k, String(v)]);
  return out;
}

/** `existing` with each of `added`'s names set to its value: the first of a name replaced in place, later ones dropped. */
function* mergePairs(existing: readonly [string, string][], added: readonly [string, string][]): Generator<[string, string]> {
  const values = new Map(added);
  const placed = new Set<string>();
  for (const [k, v] of existing) {
    if (!values.has(k)) yield [k, v];
    else if (!placed.has(k)) {
      placed.add(k);
      yield [k, values.get(k)!];
    }
  }
  for (const [k, v] of values) if (!placed.has(k)) yield [k, v];
}

/** The address up to its path: scheme, any user information and host. */
function addressOf(url: HttpUrl): string {
  return url.href.slice(0, url.href.length - url.pathname.length - url.search.length - url.hash.length);
}

/** As the form-urlencoded serializer (`URLSearchParams`) encodes, but a space as `%20`. */
function encodeQueryPart(text: string): string {
  return encodeURIComponent(text).replace(/[!'()~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function decodeQueryPart(text: string): string {
  const spaced = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}
