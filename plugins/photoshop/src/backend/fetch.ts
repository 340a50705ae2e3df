/**
 * UXP's `fetch` made fit for `@pfc/core`:
 * - UXP's `fetch` takes `method`, `headers`, `body` and `credentials` only — no
 *   `signal` (AdobeDocs/uxp-photoshop `src/pages/uxp-api/reference-js/global-members/data-transfers/fetch.md:42-49`;
 *   `@adobe/cc-ext-uxp-types/uxp/index.d.ts:1424-1429`). The wrapper honours
 *   `init.signal` itself: an abort (the user's Cancel, or core's inactivity
 *   timeout) rejects the pending request and errors the body being read at once.
 * - Where a runtime answers without a body stream, the bytes are read once and
 *   served as a stream and through the usual readers.
 * - A request the runtime refuses before reaching the network (a domain outside
 *   the manifest's permission, plain HTTP blocked by the system) is said as such.
 */
import type { FetchLike } from '@pfc/core';
import { abortError } from '../platform/abort';

/** Statuses whose answers carry no body. */
const NO_BODY = new Set([101, 204, 205, 304]);

/** The request options UXP documents; the rest (signal, redirect, duplex) it ignores. */
const UXP_INIT_KEYS = ['method', 'headers', 'body', 'credentials'] as const;

/** The wrapped `fetch` for the panel. */
export function uxpFetch(fetchImpl: FetchLike): FetchLike {
  return withAbort(withBodyStreams(fetchImpl));
}

/** Honour `init.signal` around a `fetch` that ignores it. */
export function withAbort(fetchImpl: FetchLike): FetchLike {
  return async (input, init) => {
    const signal = init?.signal ?? undefined;
    const plain: RequestInit = {};
    for (const k of UXP_INIT_KEYS) if (init?.[k] !== undefined) (plain as Record<string, unknown>)[k] = init[k];
    if (!signal) return fetchImpl(input, plain);
    if (signal.aborted) throw abortError(signal.reason);
    const res = await untilAborted(signal, fetchImpl(input, plain));
    return res.body ? abortableBody(res, signal) : res;
  };
}

/** `promise`, or a rejection as soon as `signal` aborts. */
function untilAborted<T>(signal: AbortSignal, promise: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal.reason));
    if (signal.aborted) {
      promise.catch(() => undefined);
      onAbort();
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(refusalExplained(e));
      },
    );
  });
}

/** The response with a body whose reads fail as soon as `signal` aborts. */
function abortableBody(res: Response, signal: AbortSignal): Response {
  const reader = res.body!.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await untilAborted(signal, reader.read());
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (err) {
        reader.cancel().catch(() => undefined);
        controller.error(err);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return responseWithBody(res, body);
}

/** The same answer with another body stream (a Proxy: a UXP Response may not be constructible with a stream). */
function responseWithBody(res: Response, body: ReadableStream<Uint8Array>): Response {
  let used: Promise<Uint8Array> | undefined;
  const bytes = () => (used ??= readStream(body));
  const text = async () => decodeUtf8(await bytes());
  const readers: Record<string, unknown> = {
    body,
    bodyUsed: false,
    arrayBuffer: async () => (await bytes()).slice().buffer,
    bytes: async () => (await bytes()).slice(),
    text,
    json: async () => JSON.parse(await text()) as unknown,
    blob: async () => new Blob([(await bytes()).slice()], { type: res.headers.get('content-type') ?? '' }),
  };
  return new Proxy(res, {
    get(target, prop) {
      if (typeof prop === 'string' && prop in readers) return readers[prop];
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

async function readStream(body: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    total += value.byteLength;
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/** UTF-8 without `TextDecoder`, which UXP does not document (index.d.ts declares none). */
export function decodeUtf8(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i]!;
    let cp: number;
    let extra: number;
    if (b < 0x80) { cp = b; extra = 0; }
    else if (b >= 0xf0) { cp = b & 0x07; extra = 3; }
    else if (b >= 0xe0) { cp = b & 0x0f; extra = 2; }
    else if (b >= 0xc0) { cp = b & 0x1f; extra = 1; }
    else { cp = 0xfffd; extra = 0; }
    for (let k = 1; k <= extra; k++) cp = (cp << 6) | ((bytes[i + k] ?? 0x80) & 0x3f);
    i += 1 + extra;
    out += String.fromCodePoint(cp > 0x10ffff ? 0xfffd : cp);
  }
  return out;
}

/** Serve a body-less answer's bytes as a stream too (core reads results as `response.body`). */
export function withBodyStreams(fetchImpl: FetchLike): FetchLike {
  return async (input, init) => {
    const res = await fetchImpl(input, init);
    if (res.body || NO_BODY.has(res.status) || (res.status >= 300 && res.status < 400) || typeof ReadableStream === 'undefined') return res;
    const bytes = new Uint8Array(await res.arrayBuffer());
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        if (bytes.byteLength > 0) controller.enqueue(bytes);
        controller.close();
      },
    });
    return responseWithBody(res, body);
  };
}

/**
 * A fetch that failed before any answer: UXP throws a TypeError both for a
 * network failure and for a request its permissions refuse. Say what to check.
 */
function refusalExplained(err: unknown): unknown {
  if (!(err instanceof Error) || err.name === 'AbortError') return err;
  const text = err.message;
  if (/permission|not allowed|denied|manifest/i.test(text)) {
    const refused = new TypeError(
      `Photoshop refused the request (${text}): the plug-in's network permission does not cover this address`,
    );
    return Object.assign(refused, { cause: err });
  }
  return err;
}
