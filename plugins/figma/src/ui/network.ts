/**
 * Network failures worth explaining. In a Figma plugin window the browser can
 * stop a request before any answer reaches the plugin, and `fetch` then says
 * only "Failed to fetch". Three causes look the same to the caller and need
 * different fixes, so each gets its own message naming the host:
 *
 * - **Network access (CSP)**: the host is not in manifest.json `networkAccess`;
 *   Figma enforces the list as the iframe's Content-Security-Policy ("Figma
 *   blocks the requests and throws content-security policy (CSP) errors",
 *   https://developers.figma.com/docs/plugins/updates/2023/05/10/version-1-update-66).
 *   Seen as a `securitypolicyviolation` event naming the blocked address.
 * - **CORS**: "Plugin iframes have a null origin. This means that they will
 *   only be able to call APIs with `Access-Control-Allow-Origin: *`"
 *   (https://developers.figma.com/docs/plugins/making-network-requests). Told
 *   apart from an unreachable host by a `no-cors` probe of the same origin,
 *   which succeeds (with an opaque answer) whenever the server answers at all.
 * - **Unreachable**: nothing answered (not running, wrong address, offline).
 *
 * Moving requests to the main thread would not help: the same guide makes
 * main-thread requests with Figma's `fetch` and states that CORS applies
 * because plugins run inside a browser environment; that `fetch` also cannot
 * stream or report upload progress. All network calls stay in this iframe.
 */
import { AuthenticationError, ConnectionError, JobFailedError, ParameterError, PermissionDeniedError, UserAbortError } from '@pfc/core';
import { isLoopbackHost, mixedContentText } from '../shared/settings';

type Fetch = typeof fetch;

export type BlockKind = 'csp' | 'mixed' | 'cors' | 'unreachable';

/** A request that got no HTTP answer the plugin may read. */
export class NetworkBlockedError extends Error {
  override name = 'NetworkBlockedError';
  constructor(
    /** Why: the manifest's network access (CSP), the server's CORS answer, or no answer at all. */
    readonly kind: BlockKind,
    /** `host[:port]` of the request. */
    readonly host: string,
    /** Origin of the request, e.g. `http://127.0.0.1:8787`. */
    readonly origin: string,
    options?: { cause?: unknown },
  ) {
    super(blockedText(kind, host, origin), options);
  }
}

export function blockedText(kind: BlockKind, host: string, origin: string): string {
  switch (kind) {
    case 'csp':
      return (
        `Figma blocked the request to ${host}: it is not in the plugin's network access list (manifest.json "networkAccess"). ` +
        `Add ${origin} to "allowedDomains" (or "devAllowedDomains" while developing) and reload the plugin.`
      );
    case 'cors':
      return (
        `${host} answered, but did not allow the request from the plugin window (CORS). ` +
        `Figma plugin windows send requests with "Origin: null", so the server at ${origin} must answer with ` +
        `"Access-Control-Allow-Origin: *" (and allow the Authorization and Content-Type headers). ` +
        `Run the emulator with its CORS headers on, or put the server behind a proxy that adds them.`
      );
    case 'mixed':
      return `Could not reach ${host}: ${mixedContentText(host)}.`;
    case 'unreachable':
      return `Could not reach ${host}: nothing answered at ${origin}. Check that the server is running and the address in Settings is right.`;
  }
}

/** Addresses the page's Content-Security-Policy refused, as the browser reported them. */
const cspBlocked: string[] = [];
let listening = false;

/** Start recording CSP refusals (once per document; harmless where there is no document). */
export function watchPolicyViolations(doc: Pick<Document, 'addEventListener'> | undefined = globalThis.document): void {
  if (listening || !doc) return;
  listening = true;
  doc.addEventListener('securitypolicyviolation', (e: Event) => {
    const uri = (e as SecurityPolicyViolationEvent).blockedURI;
    if (uri) cspBlocked.push(uri);
  });
}

function blockedByPolicy(url: URL): boolean {
  return cspBlocked.some((uri) => {
    try {
      return new URL(uri).origin === url.origin;
    } catch {
      return uri === url.host || uri.startsWith(url.origin);
    }
  });
}

const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * Why `url` got no answer: plain http to another computer (mixed content, which the browser blocks before any
 * request and reports to no event: known by the address alone), a CSP refusal, a CORS refusal (the server answers
 * a `no-cors` probe), or nothing there.
 */
export async function classifyBlock(url: URL, inner: Fetch): Promise<BlockKind> {
  if (url.protocol === 'http:' && !isLoopbackHost(url.host)) return 'mixed';
  let answered = false;
  try {
    await inner(`${url.origin}/`, { mode: 'no-cors', cache: 'no-store', signal: AbortSignal.timeout(5000) });
    answered = true;
  } catch {
    answered = false;
  }
  // The violation event is queued as a task of its own; let it arrive.
  await nextTask();
  if (blockedByPolicy(url)) return 'csp';
  return answered ? 'cors' : 'unreachable';
}

function urlOf(input: Parameters<Fetch>[0]): URL | undefined {
  try {
    return new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
  } catch {
    return undefined;
  }
}

/**
 * `fetch` that turns "no answer" into a `NetworkBlockedError` naming the host
 * and the cause; aborts pass through. Works for any host — the API's, a
 * pre-signed upload address or a result address on another origin.
 */
export function explainingFetch(inner: Fetch = globalThis.fetch.bind(globalThis)): Fetch {
  watchPolicyViolations();
  return async (input, init) => {
    try {
      return await inner(input, init);
    } catch (err) {
      if (init?.signal?.aborted || (err instanceof DOMException && err.name === 'AbortError')) throw err;
      const url = urlOf(input);
      if (!url || !(err instanceof TypeError)) throw err;
      throw new NetworkBlockedError(await classifyBlock(url, inner), url.host, url.origin, { cause: err });
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
