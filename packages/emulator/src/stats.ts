/** Request and job counters for tests and benchmarks (`GET /_emulator/stats`). */
import type { IncomingHttpHeaders } from 'node:http';

export class Stats {
  /** Requests per route name (`unrouted` for 404/405). */
  requests: Record<string, number> = {};
  /** Answers per HTTP status. */
  responses: Record<string, number> = {};
  /** Jobs answered from the cache. */
  cacheHits = 0;
  /** Jobs that ran the image pipeline. */
  pipelineRuns = 0;
  /** Requests to the storage origin, and how many of them carried `X-API-KEY` or asked a preflight for it (must stay 0). */
  storage = { requests: 0, withApiKey: 0 };
  private readonly startedAt = Date.now();

  onRequest(route: string): void {
    this.requests[route] = (this.requests[route] ?? 0) + 1;
  }

  onResponse(_route: string, status: number): void {
    this.responses[status] = (this.responses[status] ?? 0) + 1;
  }

  onStorageRequest(headers: IncomingHttpHeaders): void {
    this.storage.requests++;
    const asked = headers['access-control-request-headers'];
    if (headers['x-api-key'] !== undefined || (typeof asked === 'string' && /(^|[\s,])x-api-key($|[\s,])/i.test(asked))) this.storage.withApiKey++;
  }

  reset(): void {
    this.requests = {};
    this.responses = {};
    this.cacheHits = 0;
    this.pipelineRuns = 0;
    this.storage = { requests: 0, withApiKey: 0 };
  }

  uptimeMs(): number {
    return Date.now() - this.startedAt;
  }
}
