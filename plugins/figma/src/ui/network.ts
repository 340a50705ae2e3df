/**
 * Network failures worth explaining. In a Figma plugin window a request can be
 * blocked by the browser before it leaves (the server does not answer CORS for
 * `Origin: null`, or the host is missing from the manifest's `networkAccess`),
 * and `fetch` then says only "Failed to fetch". The wrapper below remembers
 * which host it was, so the user is told where the problem is.
 */
import { AuthenticationError, ConnectionError, JobFailedError, ParameterError, PermissionDeniedError, UserAbortError } from '@pfc/core';

type Fetch = typeof fetch;

/** A request that got no HTTP answer at all (blocked, refused or unreachable). */
export class NetworkBlockedError extends Error {
  override name = 'NetworkBlockedError';
  constructor(
    /** `host[:port]` of the request. */
    readonly host: string,
    /** Origin of the request, e.g. `http://127.0.0.1:8787`. */
    readonly origin: string,
    options?: { cause?: unknown },
  ) {
    super(blockedText(host, origin), options);
  }
}

export function blockedText(host: string, origin: string): string {
  return (
    `Could not reach ${host}: the request was blocked or got no answer. ` +
    `Figma plugins send requests with "Origin: null", so the server at ${origin} must allow cross-origin requests ` +
    `(Access-Control-Allow-Origin: *) and ${host} must be in the plugin's networkAccess list. ` +
    `Check that the server is running and the address in Settings is right.`
  );
}

function urlOf(input: Parameters<Fetch>[0]): URL | undefined {
  try {
    return new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
  } catch {
    return undefined;
  }
}

/** `fetch` that turns "no answer" into a `NetworkBlockedError` naming the host; aborts pass through. */
export function explainingFetch(inner: Fetch = globalThis.fetch.bind(globalThis)): Fetch {
  return async (input, init) => {
    try {
      return await inner(input, init);
    } catch (err) {
      if (init?.signal?.aborted || (err instanceof DOMException && err.name === 'AbortError')) throw err;
      const url = urlOf(input);
      if (!url || !(err instanceof TypeError)) throw err;
      throw new NetworkBlockedError(url.host, url.origin, { cause: err });
    }
  };
}

function causes(err: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e: unknown = err; e && out.length < 8; e = (e as { cause?: unknown }).cause) out.push(e);
  return out;
}

/** A message for the user about a failed image or request. Never contains the API key (core redacts it). */
export function describeError(err: unknown): string {
  const chain = causes(err);
  const blocked = chain.find((e): e is NetworkBlockedError => e instanceof NetworkBlockedError);
  if (blocked) return blocked.message;
  if (err instanceof UserAbortError) return 'Cancelled';
  if (err instanceof AuthenticationError || err instanceof PermissionDeniedError) {
    return `The service refused the API key (HTTP ${err.status}); check the key in Settings`;
  }
  if (err instanceof ParameterError) return `Invalid options: ${err.message}`;
  if (err instanceof JobFailedError) return `The service could not correct this image: ${err.statusText || err.status}`;
  if (err instanceof ConnectionError) return err.message;
  return err instanceof Error ? err.message : String(err);
}
