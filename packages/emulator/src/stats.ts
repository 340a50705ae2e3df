/** Request and job counters for tests and benchmarks (`GET /_emulator/stats`). */

export class Stats {
  /** Requests per route name (`unrouted` for 404/405). */
  requests: Record<string, number> = {};
  /** Answers per HTTP status. */
  responses: Record<string, number> = {};
  /** Jobs answered from the cache. */
  cacheHits = 0;
  /** Jobs that ran the image pipeline. */
  pipelineRuns = 0;
  private readonly startedAt = Date.now();

  onRequest(route: string): void {
    this.requests[route] = (this.requests[route] ?? 0) + 1;
  }

  onResponse(_route: string, status: number): void {
    this.responses[status] = (this.responses[status] ?? 0) + 1;
  }

  reset(): void {
    this.requests = {};
    this.responses = {};
    this.cacheHits = 0;
    this.pipelineRuns = 0;
  }

  uptimeMs(): number {
    return Date.now() - this.startedAt;
  }
}
