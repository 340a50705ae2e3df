/**
 * Response helpers shared by every server of the emulator (the Web API here;
 * the container emulations reuse them): CORS on every answer, JSON bodies,
 * and errors always shaped `{ "error": "<message>" }`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * CORS for every route. The Figma UI iframe calls from `Origin: null`, so the
 * origin is `*`; no credentials are used (the key travels in `X-API-KEY`).
 */
export function applyCors(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, POST, PUT, DELETE, OPTIONS');
  // Echo what a preflight asks for (browsers add e.g. Content-Type), and always allow the key.
  const asked = req.headers['access-control-request-headers'];
  const allowed = ['X-API-KEY', 'Content-Type', 'Content-Length'];
  if (typeof asked === 'string' && /^[\w\s,-]{1,500}$/.test(asked)) allowed.push(asked);
  res.setHeader('Access-Control-Allow-Headers', allowed.join(', '));
  res.setHeader('Access-Control-Expose-Headers', 'Location, Retry-After, X-Request-Id, Content-Length, ETag');
  res.setHeader('Access-Control-Max-Age', '600');
}

/** Sends a JSON body (UTF-8) with the given status. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
  });
  res.end(text);
}

/** Sends `{ "error": message, ...extra }`. */
export function sendError(res: ServerResponse, status: number, message: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): void {
  sendJson(res, status, { error: message, ...extra }, headers);
}

/**
 * An error a handler throws to answer with a status and `{error}` body.
 * Anything else thrown becomes a 500 without internals in the body.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }

  /** Writes the answer; subclasses with another body format (storage's XML) override it. */
  send(res: ServerResponse): void {
    sendError(res, this.status, this.message, this.extra, this.headers);
  }
}

/**
 * Reads a small request body as JSON. Over `maxBytes` → 413; not JSON → 400.
 * An empty body reads as `{}`.
 */
export async function readJsonBody(req: IncomingMessage, maxBytes = 64 * 1024): Promise<unknown> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw new HttpError(413, `request body larger than ${maxBytes} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new HttpError(413, `request body larger than ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, 'request body must be JSON');
  }
}

/** The request's media type: its `Content-Type` without parameters, lower case; '' when absent. */
export function mediaTypeOf(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Reads and discards a request body, so keep-alive connections stay usable after an early answer. */
export function drain(req: IncomingMessage): void {
  if (!req.complete) req.resume();
}

/**
 * The query as one value per name. A name sent twice is a 400 naming it:
 * guessing which value the caller meant would hide a bug in their script.
 * With `known`, a name outside it is a 400 too: a misspelt or wrongly cased
 * parameter (`filetype`, `noredirect`) would otherwise be dropped silently and
 * the request would run with the default the caller did not mean.
 */
export function singleQuery(url: URL, known?: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of url.searchParams) {
    if (Object.prototype.hasOwnProperty.call(out, name)) throw new HttpError(400, `parameter ${name} was sent more than once`);
    if (known && !known.includes(name)) {
      throw new HttpError(400, `unknown parameter "${name}"; known parameters: ${known.join(', ') || 'none'}`, { errors: [{ param: name, message: 'unknown parameter' }] });
    }
    out[name] = value;
  }
  return out;
}
