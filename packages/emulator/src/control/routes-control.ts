/**
 * Control routes under `/_emulator/` for tests and benchmarks: counters, job
 * records and fault injection at run time. Served only when the emulator is
 * started with `control: true` (`--control`): a running emulator is reachable
 * from any web page the user has open, so these routes carry no CORS headers
 * (a browser on another origin cannot read them or send a preflighted
 * request), take only `application/json` bodies (a `text/plain` POST is the
 * one a page could send without a preflight), and need an API key whenever
 * keys are configured. Never subject to injected faults.
 */
import type { IncomingMessage } from 'node:http';
import type { JobRecord, JobState, PfcParams } from '@pfc/core';
import { HttpError, mediaTypeOf, readJsonBody, sendJson } from '../http/respond';
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

/**
 * One Web API job as the service sees it (`GET /_emulator/jobs`): its public
 * record and the effective parameters it received. This is what a test reads
 * to prove that a host sent the user's options, independent of the host's own log.
 */
export interface EmulatorJobRecord {
  jobId: string;
  state: JobState;
  /** The job's `/status` record. */
  record: JobRecord;
  /** The parameters as the client sent them (validated; `fileKey` included). */
  requested: PfcParams;
  /** Effective parameters of the job (the service's defaults applied). */
  params: PfcParams;
  /** Hex SHA-256 of the uploaded input, so a test can tell which file a job processed. */
  inputSha256: string;
  /** Size of the uploaded input, bytes. */
  inputBytes: number;
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

/** Every job the emulator still knows, oldest first. */
export function emulatorJobs(app: WebApiApp): EmulatorJobRecord[] {
  return [...app.queue.list()].map((job) => ({
    jobId: job.record._id,
    state: job.record.status,
    record: structuredClone(job.record),
    requested: structuredClone(job.spec.requested),
    params: structuredClone(job.spec.params),
    inputSha256: job.spec.file.sha256,
    inputBytes: job.spec.file.size,
  }));
}

/** Throws 401 when keys are configured and the request carries none of them. */
function checkControlKey(app: WebApiApp, req: IncomingMessage): void {
  if (app.auth.configured) app.auth.check(req);
}

/** Reads a control body, refusing anything but JSON (415) so a page cannot send one without a preflight. */
async function readControlJson(req: IncomingMessage): Promise<unknown> {
  const type = mediaTypeOf(req);
  if (type !== 'application/json') throw new HttpError(415, 'control routes take Content-Type: application/json bodies only');
  return readJsonBody(req);
}

export function controlRoutes(app: WebApiApp): RouteDef[] {
  const control = (name: string, method: RouteDef['method'], path: string, handle: RouteDef['handle']): RouteDef => ({
    name,
    method,
    path,
    faults: false,
    cors: false,
    handle: (ctx) => {
      checkControlKey(app, ctx.req);
      return handle(ctx);
    },
  });
  return [
    control('control.stats', 'GET', '/_emulator/stats', ({ res }) => sendJson(res, 200, emulatorStats(app))),
    control('control.stats.reset', 'DELETE', '/_emulator/stats', ({ res }) => {
      app.stats.reset();
      sendJson(res, 200, emulatorStats(app));
    }),
    control('control.jobs', 'GET', '/_emulator/jobs', ({ res }) => sendJson(res, 200, { jobs: emulatorJobs(app) })),
    control('control.faults.get', 'GET', '/_emulator/faults', ({ res }) => sendJson(res, 200, app.faults.get())),
    control('control.faults.set', 'POST', '/_emulator/faults', async ({ req, res }) => {
      const body = await readControlJson(req);
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
