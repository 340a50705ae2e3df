/**
 * A fake `fetch` for unit tests: routes by method and URL, records every call
 * (with its headers), honours the request's AbortSignal, and plays one-shot
 * faults (a status with headers, or a dropped connection) before the route.
 */
import { UserAbortError, type FetchLike } from '@pfc/core';

export interface Call {
  method: string;
  url: URL;
  headers: Headers;
}

export type Handler = (req: Request, url: URL, match: RegExpMatchArray) => Response | Promise<Response>;

type Fault = { status: number; headers?: Record<string, string>; body?: string } | 'reset';

export class FakeFetch {
  readonly calls: Call[] = [];
  private readonly routes: { method: string; pattern: RegExp; handler: Handler }[] = [];
  private readonly faults: { method: string; pattern: RegExp; fault: Fault }[] = [];

  on(method: string, pattern: RegExp, handler: Handler): this {
    // Later routes win, so a test can override one of FakeApi's.
    this.routes.unshift({ method, pattern, handler });
    return this;
  }

  /** The next matching request gets this fault instead of the route (queue, one-shot each). */
  fail(method: string, pattern: RegExp, ...faults: Fault[]): this {
    for (const fault of faults) this.faults.push({ method, pattern, fault });
    return this;
  }

  callsTo(method: string, pattern: RegExp): Call[] {
    return this.calls.filter((c) => c.method === method && pattern.test(c.url.href));
  }

  readonly fetch: FetchLike = async (input, init) => {
    const req = new Request(input, init as RequestInit);
    const url = new URL(req.url);
    this.calls.push({ method: req.method, url, headers: new Headers(req.headers) });
    const signal = init?.signal ?? undefined;
    if (signal?.aborted) throw abortError();
    const fi = this.faults.findIndex((f) => f.method === req.method && f.pattern.test(url.href));
    if (fi >= 0) {
      const { fault } = this.faults.splice(fi, 1)[0]!;
      if (fault === 'reset') throw Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });
      return new Response(fault.body ?? JSON.stringify({ error: `injected ${fault.status}` }), { status: fault.status, headers: fault.headers });
    }
    const route = this.routes.find((r) => r.method === req.method && r.pattern.test(url.href));
    if (!route) return new Response(JSON.stringify({ error: `no route ${req.method} ${url.pathname}` }), { status: 404 });
    const answer = route.handler(req, url, url.href.match(route.pattern)!);
    if (!signal) return answer;
    // Like a real fetch: an abort while waiting for the answer rejects.
    return await new Promise<Response>((resolve, reject) => {
      const onAbort = () => reject(abortError());
      signal.addEventListener('abort', onAbort, { once: true });
      Promise.resolve(answer).then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  };
}

export function abortError(): Error {
  return new DOMException('This operation was aborted', 'AbortError');
}

export function json(body: unknown, init: ResponseInit = {}): Response {
  return new Response(JSON.stringify(body), { ...init, headers: { 'content-type': 'application/json', ...init.headers } });
}

/** Far more waits than any test's poll or retry loop makes. */
const MAX_SLEEPS = 10_000;

/** A sleep that records the delays asked for and returns at once (honouring abort). */
export function recordingSleep(): { sleep: (ms: number, signal?: AbortSignal) => Promise<void>; delays: number[] } {
  const delays: number[] = [];
  return {
    delays,
    sleep: async (ms, signal) => {
      delays.push(ms);
      if (signal?.aborted) throw new UserAbortError();
      // No clock moves here, so a wait that never ends would spin until the worker is killed: fail instead.
      if (delays.length > MAX_SLEEPS) throw new Error(`more than ${MAX_SLEEPS} waits: the loop waiting here never ends`);
    },
  };
}
