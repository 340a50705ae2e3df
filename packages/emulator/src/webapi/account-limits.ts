/**
 * Account limits: how many jobs one API key may have PENDING or PROCESSING,
 * and how many keyed requests it may send per second. Over a limit the answer
 * is 429 with `Retry-After` (seconds), which clients treat as retryable
 * (observed-behaviour: "408, 429 and 5xx as retryable, honour Retry-After";
 * the document shows no rate limits, so both are off unless configured).
 */
import type { JobRecord } from '@pfc/core';
import { HttpError } from '../http/respond';

/** Per-key limits; absent = unlimited. */
export interface AccountLimits {
  /** Jobs one key may have PENDING or PROCESSING at once; `GET /pfc` beyond it → 429. */
  jobsInProgress?: number;
  /** Keyed requests per second one key may send (a bucket of this many, refilled continuously); beyond → 429. */
  requestsPerSecond?: number;
}

export class AccountLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly jobs = new Map<string, Set<JobRecord>>();
  /** Answers refused so far, by limit. */
  readonly refused = { requests: 0, jobs: 0 };

  constructor(
    private readonly limits: AccountLimits,
    private readonly now: () => number,
  ) {}

  /** Takes one request from the key's bucket; 429 when it is empty, with the wait until the next token. */
  request(owner: string): void {
    const rate = this.limits.requestsPerSecond;
    if (rate === undefined) return;
    const now = this.now();
    const b = this.buckets.get(owner) ?? { tokens: rate, at: now };
    b.tokens = Math.min(rate, b.tokens + ((now - b.at) / 1000) * rate);
    b.at = now;
    this.buckets.set(owner, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return;
    }
    this.refused.requests++;
    const waitS = Math.max(1, Math.ceil((1 - b.tokens) / rate));
    throw new HttpError(429, `rate limit: this API key may send ${rate} requests per second`, { limit: 'requestsPerSecond' }, { 'Retry-After': String(waitS) });
  }

  /** 429 when the key already has its limit of jobs PENDING or PROCESSING. */
  admitJob(owner: string): void {
    const max = this.limits.jobsInProgress;
    if (max === undefined) return;
    const mine = this.jobs.get(owner);
    if (!mine) return;
    for (const r of mine) if (r.status !== 'PENDING' && r.status !== 'PROCESSING') mine.delete(r);
    if (mine.size < max) return;
    this.refused.jobs++;
    throw new HttpError(429, `concurrency limit: this API key may have ${max} jobs in progress; wait for one to finish`, { limit: 'jobsInProgress' }, { 'Retry-After': '1' });
  }

  /** Counts a started job against its key until it leaves PENDING/PROCESSING. */
  started(owner: string, record: JobRecord): void {
    if (this.limits.jobsInProgress === undefined) return;
    let mine = this.jobs.get(owner);
    if (!mine) this.jobs.set(owner, (mine = new Set()));
    mine.add(record);
  }
}
