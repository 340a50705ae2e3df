/** The Web API v2 server: routes, hooks (stats, faults, log), listening, periodic sweep. */
import { emulatorStats, controlRoutes } from '../control/routes-control';
import { listen, type StartedServer } from '../http/listen';
import { createRequestListener, Router } from '../http/router';
import type { EmulatorOptions } from '../options';
import type { DataStore } from '../storage';
import { createWebApiApp, sweep, type WebApiApp } from './app';
import { jobRoutes } from './routes-jobs';
import { presetRoutes } from './routes-presets';
import { resultRoutes } from './routes-results';
import { uploadRoutes } from './routes-upload';

export interface StartedWebApi {
  app: WebApiApp;
  server: StartedServer;
  /** `http://host:port/v2` */
  url: string;
  close(): Promise<void>;
}

export async function startWebApi(options: EmulatorOptions, store: DataStore): Promise<StartedWebApi> {
  const app = createWebApiApp(options, store);
  const log = options.log;
  const router = new Router().add(...uploadRoutes(app), ...jobRoutes(app), ...presetRoutes(app), ...resultRoutes(app));
  if (options.control === true) router.add(...controlRoutes(app));
  const listener = createRequestListener(router, {
    before: (ctx) => app.faults.beforeRequest(ctx),
    onRequest: (name) => app.stats.onRequest(name),
    onResponse: (name, status) => {
      app.stats.onResponse(name, status);
      log?.(`web ${name} ${status}`);
    },
    onError: (name, err) => log?.(`web ${name} error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`),
  });
  const server = await listen(listener, options.host ?? '127.0.0.1', options.webPort ?? 0);
  app.web = `${server.origin}/v2`;
  // Sweep often enough that short test retentions are honoured on disk too; unref'd so it never holds the process.
  const every = Math.min(60_000, Math.max(1_000, app.retentionMinutes * 15_000));
  const timer = setInterval(() => void sweep(app).catch((err: unknown) => log?.(`sweep error: ${String(err)}`)), every);
  timer.unref();
  return {
    app,
    server,
    url: app.web,
    async close() {
      clearInterval(timer);
      await server.close();
      await app.queue.close();
    },
  };
}

export { emulatorStats };
