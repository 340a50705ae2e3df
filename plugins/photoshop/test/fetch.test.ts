/** The panel's fetch wrapper on a fetch that, like UXP's, ignores `signal`, with signals that, like UXP's, have no events. */
import { createWebBackend, UserAbortError, TimeoutError } from '@pfc/core';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeUtf8, uxpFetch } from '../src/backend/fetch';
import { EventedAbortController, ensureAbortEvents, hasAbortEvents } from '../src/platform/abort';

/** A fetch that never answers and never looks at `signal` (UXP's documents none). */
function deafFetch(calls: RequestInit[]) {
  return (_input: string | URL | Request, init?: RequestInit) => {
    calls.push(init ?? {});
    return new Promise<Response>(() => undefined);
  };
}

/** A fetch whose answer's body sends one chunk, then stalls forever. */
function stallingBodyFetch() {
  return async () =>
    new Response(new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(new Uint8Array([1, 2, 3])) }), { status: 200 });
}

/** UXP's AbortController as its docs describe it: a signal without events. */
class EventlessController {
  readonly signal = { aborted: false, reason: undefined as unknown, throwIfAborted() {} };
  abort() {
    this.signal.aborted = true;
  }
}

const realController = globalThis.AbortController;
afterEach(() => {
  globalThis.AbortController = realController;
});

describe('platform abort', () => {
  it('installs an evented AbortController only where the runtime has none', () => {
    const uxpLike: Record<string, unknown> = { AbortController: EventlessController };
    expect(hasAbortEvents(uxpLike)).toBe(false);
    expect(ensureAbortEvents(uxpLike)).toBe(true);
    expect(uxpLike.AbortController).toBe(EventedAbortController);
    const fired: string[] = [];
    const c = new EventedAbortController();
    c.signal.addEventListener('abort', () => fired.push('listener'));
    c.abort();
    c.abort();
    expect(fired).toEqual(['listener']);
    expect(c.signal.aborted).toBe(true);
    expect(ensureAbortEvents({ AbortController: realController })).toBe(false);
  });
});

describe('uxpFetch', () => {
  it('sends only the options UXP documents and rejects a pending request as soon as its signal aborts', async () => {
    const calls: RequestInit[] = [];
    const f = uxpFetch(deafFetch(calls));
    const c = new EventedAbortController();
    const pending = f('http://x/a', { method: 'POST', body: 'b', signal: c.signal as unknown as AbortSignal, redirect: 'error' });
    c.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(Object.keys(calls[0]!).sort()).toEqual(['body', 'method']);
  });

  it('lets core cancel and time out on a deaf fetch with event-less runtime controllers replaced', async () => {
    globalThis.AbortController = EventlessController as unknown as typeof AbortController;
    ensureAbortEvents();
    const calls: RequestInit[] = [];
    const client = createWebBackend({ baseURL: 'http://emu/v2', apiKey: 'k', fetch: uxpFetch(deafFetch(calls)), timeout: 50, maxRetries: 0 });
    await expect(client.listPresets()[Symbol.asyncIterator]().next()).rejects.toBeInstanceOf(TimeoutError);
    const c = new AbortController();
    const listing = client.listPresets({ signal: c.signal })[Symbol.asyncIterator]().next();
    c.abort();
    await expect(listing).rejects.toBeInstanceOf(UserAbortError);
  });

  it('errors a body read that stalls once the signal aborts', async () => {
    const c = new EventedAbortController();
    const res = await uxpFetch(stallingBodyFetch())('http://x', { signal: c.signal as unknown as AbortSignal });
    const reader = res.body!.getReader();
    expect((await reader.read()).value).toEqual(new Uint8Array([1, 2, 3]));
    const next = reader.read();
    c.abort();
    await expect(next).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('decodes UTF-8 without TextDecoder', () => {
    const text = 'Grüße, 日本, 🎉';
    expect(decodeUtf8(new TextEncoder().encode(text))).toBe(text);
  });
});
