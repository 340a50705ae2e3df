/**
 * UXP's `fetch` guarded for `@pfc/core`, which reads results as a stream
 * (`response.body`). Where a runtime answers without a body stream, the bytes
 * are read once and served as a stream and through the usual readers.
 */
import type { FetchLike } from '@pfc/core';

/** Statuses whose answers carry no body. */
const NO_BODY = new Set([101, 204, 205, 304]);

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
    const text = () => new TextDecoder().decode(bytes);
    const readers: Record<string, unknown> = {
      body,
      arrayBuffer: async () => bytes.slice().buffer,
      bytes: async () => bytes.slice(),
      text: async () => text(),
      json: async () => JSON.parse(text()),
      blob: async () => new Blob([bytes.slice()], { type: res.headers.get('content-type') ?? '' }),
    };
    return new Proxy(res, {
      get(target, prop, _receiver) {
        if (typeof prop === 'string' && prop in readers) return readers[prop];
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  };
}
