/** The Web API v2 server: routes, hooks (stats, faults, log), listening, periodic sweep. */
import { emulatorStats, controlRoutes } from '../control/routes-control';
import { listen, type StartedServer } from '../http/listen';
import { createRequestListener, Router, type DispatchHooks } from '../http/router';
import type { EmulatorOptions } from '../options';
import type { DataStore } from '../storage';
import { createWebApiApp, sweep, type WebApiApp } from './app';
import { jobRoutes } from './routes-jobs';
import { presetRoutes } from './routes-presets';
import { storageRoutes } from './routes-storage';
import { uploadRoutes } from './routes-upload';
import { applyStorageCors, shapeStorageError, storageClientError, storageError } from './storage-rules';

export interface StartedWebApi {
  app: WebApiApp;
  server: StartedServer;
  /** `http://host:port/v2` */
  url: string;
  /** Origin of the pre-signed uploads and results (`http://host:port`), or the API's `/v2` when same-origin. */
  storageUrl: string;
  close(): Promise<void>;
}

export async function startWebApi(options: EmulatorOptions, store: DataStore): Promise<StartedWebApi> {
  const app = createWebApiApp(options, store);
  const log = options.log;
  const sameOrigin = options.storage?.sameOrigin === true;
  const apiRoutes = [...uploadRoutes(app), ...jobRoutes(app), ...presetRoutes(app), ...(options.control === true ? controlRoutes(app) : [])];
  const router = new Router().add(...apiRoutes, ...(sameOrigin ? storageRoutes(app, '/v2') : []));
  const host = options.host ?? '127.0.0.1';
  const server = await listen(createRequestListener(router, dispatchHooks(app, 'web', log)), host, options.webPort ?? 0, { idleMs: options.idleTimeoutMs });
  const closers = [server.close];
  try {
    app.web = `${server.origin}/v2`;
    app.storage = sameOrigin ? app.web : await startStorage(app, options, host, log, closers);
  } catch (err) {
    await Promise.allSettled(closers.map((c) => c()));
    throw err;
  }
  // Sweep often enough that short test retentions are honoured on disk too; unref'd so it never holds the process.
  const every = Math.min(60_000, Math.max(1_000, app.retentionMinutes * 15_000));
  const timer = setInterval(() => void sweep(app).catch((err: unknown) => log?.(`sweep error: ${String(err)}`)), every);
  timer.unref();
  return {
    app,
    server,
    url: app.web,
    storageUrl: app.storage,
    async close() {
      clearInterval(timer);
      await Promise.all(closers.map((c) => c()));
      await app.queue.close();
    },
  };
}

/** Stats, faults and the log around every request of one listener. */
function dispatchHooks(app: WebApiApp, server: 'web' | 'storage', log: ((line: string) => void) | undefined): DispatchHooks {
  return {
    before: (ctx) => app.faults.beforeRequest(ctx, server === 'web' ? '/v2' : ''),
    onRequest: (name) => app.stats.onRequest(name),
    onResponse: (name, status) => {
      app.stats.onResponse(name, status);
      log?.(`${server} ${name} ${status}`);
    },
    onError: (name, err) => log?.(`${server} ${name} error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`),
    ...(server === 'storage' ? { cors: applyStorageCors, shapeError: (err) => shapeStorageError({ strict: app.strictStorage }, err) } : {}),
  };
}

/**
 * The storage origin: its own listener (another port, and the host the caller
 * names), so uploads and results are cross-origin as on the hosted service.
 * Every request that carries an API key (or asks a preflight for one) is
 * counted: the key must never go there.
 */
async function startStorage(app: WebApiApp, options: EmulatorOptions, apiHost: string, log: ((line: string) => void) | undefined, closers: (() => Promise<void>)[]): Promise<string> {
  const listener = createRequestListener(new Router().add(...storageRoutes(app, '')), dispatchHooks(app, 'storage', log));
  const server = await listen(
    (req, res) => {
      app.stats.onStorageRequest(req.headers);
      listener(req, res);
    },
    options.storage?.host ?? apiHost,
    options.storage?.port ?? 0,
    {
      clientErrorBody: storageClientError({ strict: app.strictStorage }),
      idleMs: options.idleTimeoutMs,
      idleAnswer: (res) => storageError({ strict: app.strictStorage }, 400, 'RequestTimeout', 'Your socket connection to the server was not read from or written to within the timeout period. Idle connections will be closed.').send(res),
    },
  );
  closers.push(server.close);
  return server.origin;
}

export { emulatorStats };
