/**
 * A small router over `node:http`: method + path templates with `:param`
 * segments. No framework: the emulator has a dozen routes, and owning the
 * dispatch lets fault injection, stats and CORS wrap every route uniformly.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { applyCors, drain, HttpError, sendError } from './respond';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** What a route handler receives. */
export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  /** The request address (origin is a placeholder; use the server's own base URL for links). */
  url: URL;
  /** Decoded `:param` segments. */
  params: Record<string, string>;
  /** Also sent as the `X-Request-Id` header. */
  requestId: string;
  route: RouteDef;
}

export interface RouteDef {
  /** Stable name used in stats and fault patterns, e.g. `pfc`, `presets.list`. */
  name: string;
  method: Method;
  /** Template such as `/v2/status/:id`; a trailing slash on the request is ignored. */
  path: string;
  /** Whether injected faults may hit this route (false for the control routes). Default true. */
  faults?: boolean;
  /**
   * Whether answers carry CORS headers (and preflights succeed). Default true;
   * false keeps browsers on other origins from calling the route at all.
   */
  cors?: boolean;
  /** A GET route that also answers HEAD (Node drops the body). Default false. */
  head?: boolean;
  handle(ctx: RequestContext): Promise<void> | void;
}

interface Compiled {
  route: RouteDef;
  segments: string[];
}

export type RouteMatch = { route: RouteDef; params: Record<string, string> } | { allowed: Method[] };

export class Router {
  private readonly compiled: Compiled[] = [];

  add(...routes: RouteDef[]): this {
    for (const route of routes) this.compiled.push({ route, segments: splitPath(route.path) });
    return this;
  }

  /** Whether any route at this (still encoded) path allows cross-origin calls; true when none matches. */
  allowsCors(pathname: string): boolean {
    const parts = splitPath(pathname);
    const routes = this.compiled.filter((c) => matchSegments(c.segments, parts)).map((c) => c.route);
    return routes.length === 0 || routes.some((r) => r.cors !== false);
  }

  /** The route for a method and (still encoded) path; `{allowed}` when only the method is wrong; undefined when no path matches. */
  match(method: string, pathname: string): RouteMatch | undefined {
    const parts = splitPath(pathname);
    const allowed: Method[] = [];
    for (const c of this.compiled) {
      const params = matchSegments(c.segments, parts);
      if (!params) continue;
      if (c.route.method === method || (method === 'HEAD' && c.route.head === true)) return { route: c.route, params };
      allowed.push(c.route.method);
    }
    return allowed.length > 0 ? { allowed } : undefined;
  }
}

function splitPath(path: string): string[] {
  return path.split('/').filter((s, i, all) => !(s === '' && (i === 0 || i === all.length - 1)));
}

function matchSegments(template: string[], parts: string[]): Record<string, string> | undefined {
  if (template.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < template.length; i++) {
    const t = template[i]!;
    const p = parts[i]!;
    if (t.startsWith(':')) {
      if (p === '') return undefined;
      let decoded: string;
      try {
        decoded = decodeURIComponent(p);
      } catch {
        return undefined;
      }
      params[t.slice(1)] = decoded;
    } else if (t !== p) return undefined;
  }
  return params;
}

/** The request's path and query as a URL, or undefined when the target is malformed. */
function requestUrl(req: IncomingMessage): URL | undefined {
  const raw = req.url ?? '/';
  if (!raw.startsWith('/')) return undefined;
  // Concatenation (not `new URL(raw, base)`) so `//host/x` stays a path, never an authority.
  try {
    return new URL(`http://emulator.invalid${raw}`);
  } catch {
    return undefined;
  }
}

/** Hooks around every routed request: stats, fault injection, logging. */
export interface DispatchHooks {
  /** Runs before the handler; return true when it already answered (an injected fault). */
  before?(ctx: RequestContext): Promise<boolean> | boolean;
  /** Called once per request with the route name (or `unrouted`). */
  onRequest?(routeName: string): void;
  /** Called when the answer finishes, with its status. */
  onResponse?(routeName: string, status: number): void;
  /** Unexpected handler errors (never includes request headers, so never the key). */
  onError?(routeName: string, err: unknown): void;
}

/** A `node:http` request listener for a router: CORS, request ids, 404/405, and errors as `{error}` JSON. */
export function createRequestListener(router: Router, hooks: DispatchHooks = {}): RequestListener {
  return (req, res) => {
    void dispatch(router, hooks, req, res);
  };
}

async function dispatch(router: Router, hooks: DispatchHooks, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let routeName = 'unrouted';
  req.on('error', () => undefined); // an aborted upload must not become an unhandled error
  res.on('finish', () => hooks.onResponse?.(routeName, res.statusCode));
  try {
    const requestId = randomUUID();
    res.setHeader('X-Request-Id', requestId);
    const url = requestUrl(req);
    if (url === undefined || router.allowsCors(url.pathname)) applyCors(req, res);
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { 'Content-Length': '0' });
      res.end();
      return;
    }
    if (url === undefined) throw new HttpError(400, 'malformed request target');
    const m = router.match(req.method ?? 'GET', url.pathname);
    if (!m) {
      hooks.onRequest?.(routeName);
      drain(req);
      throw new HttpError(404, `no route for ${req.method ?? 'GET'} ${url.pathname}`);
    }
    if ('allowed' in m) {
      hooks.onRequest?.(routeName);
      drain(req);
      throw new HttpError(405, `method ${req.method ?? ''} is not allowed here; allowed: ${m.allowed.join(', ')}`, {}, { Allow: [...m.allowed, 'OPTIONS'].join(', ') });
    }
    routeName = m.route.name;
    hooks.onRequest?.(routeName);
    const ctx: RequestContext = { req, res, url, params: m.params, requestId, route: m.route };
    if (m.route.faults !== false && hooks.before && (await hooks.before(ctx))) return;
    await m.route.handle(ctx);
  } catch (err) {
    if (res.destroyed) return;
    if (err instanceof HttpError) {
      drain(req);
      sendError(res, err.status, err.message, err.extra, err.headers);
      return;
    }
    hooks.onError?.(routeName, err);
    drain(req);
    sendError(res, 500, 'internal error in the emulator');
  }
}
