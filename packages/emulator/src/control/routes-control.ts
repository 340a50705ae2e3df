/**
 * Control routes under `/_emulator/` for tests and benchmarks: counters, and
 * fault injection at run time. No key, and never subject to injected faults;
 * the emulator is a local tool and listens on 127.0.0.1 by default.
 */
import type { JobState } from '@pfc/core';
import { HttpError, readJsonBody, sendJson } from '../http/respond';
import type { RouteDef } from '../http/router';
import { sweep, type WebApiApp } from '../webapi/app';

/** Body of `GET /_emulator/stats`. */
export interface EmulatorStats {
  uptimeMs: number;
  /** Requests per route name (`unrouted` for 404/405). */
  requests: Record<string, number>;
  /** Answers per HTTP status. */
  responses: Record<string, number>;
  jobs: { total: number; byState: Record<JobState, number>; cacheHits: number; pipelineRuns: number };
  /** Faults injected so far, by kind. */
  faults: Record<string, number>;
  /** Requests to the storage origin; `withApiKey` counts those that carried (or asked to send) `X-API-KEY`. */
  storage: { requests: number; withApiKey: number };
  /** Answers refused with 429 by the account limits, by limit. */
  accountLimits: { requests: number; jobs: number };
}

export function emulatorStats(app: WebApiApp): EmulatorStats {
  const byState = app.queue.countByState();
  return {
    uptimeMs: app.stats.uptimeMs(),
    requests: { ...app.stats.requests },
    responses: { ...app.stats.responses },
    jobs: {
      total: Object.values(byState).reduce((a, b) => a + b, 0),
      byState,
      cacheHits: app.stats.cacheHits,
      pipelineRuns: app.stats.pipelineRuns,
    },
    faults: { ...app.faults.counts },
    storage: { ...app.stats.storage },
    accountLimits: { ...app.accounts.refused },
  };
}

export function controlRoutes(app: WebApiApp): RouteDef[] {
  const control = (name: string, method: RouteDef['method'], path: string, handle: RouteDef['handle']): RouteDef => ({ name, method, path, faults: false, handle });
  return [
    control('control.stats', 'GET', '/_emulator/stats', ({ res }) => sendJson(res, 200, emulatorStats(app))),
    control('control.stats.reset', 'DELETE', '/_emulator/stats', ({ res }) => {
      app.stats.reset();
      sendJson(res, 200, emulatorStats(app));
    }),
    control('control.faults.get', 'GET', '/_emulator/faults', ({ res }) => sendJson(res, 200, app.faults.get())),
    control('control.faults.set', 'POST', '/_emulator/faults', async ({ req, res }) => {
      const body = await readJsonBody(req);
      try {
        app.faults.set(body as never);
      } catch (err) {
        throw new HttpError(400, (err as Error).message);
      }
      sendJson(res, 200, app.faults.get());
    }),
    control('control.faults.clear', 'DELETE', '/_emulator/faults', ({ res }) => {
      app.faults.set({});
      sendJson(res, 200, app.faults.get());
    }),
    control('control.sweep', 'POST', '/_emulator/sweep', async ({ res }) => {
      await sweep(app);
      sendJson(res, 200, { swept: true });
    }),
  ];
}
