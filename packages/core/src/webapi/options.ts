/** Options of the Web API v2 client, and the context its resources share. */
import type { Transport, TransportOptions } from '../transport';
import type { JobDurations } from './poll-schedule';
import type { HttpUrl } from '../address';

/** The vendor's public base address. */
export const DEFAULT_BASE_URL = 'https://api.perfectlyclear.io/v2';

/**
 * How `waitForJob` spaces its status requests.
 *
 * Blind (no job of this client has completed yet): the first request after
 * `initialDelayMs`, each next one `factor` times later, never more than
 * `maxDelayMs` apart. With the defaults (150 ms, ×1.5, 2 s) the gap between
 * polls at time t is about t/3 until it reaches 2 s (at ~6.8 s), so a finished
 * job is noticed on average about t/6 late (≈1 s, at most 2 s, once capped);
 * a 3 s job costs 6 status requests, a 7 s job 9 and a 9 s job 10. Jobs
 * waiting blind side by side (a batch's first wave) shift their schedules
 * against each other, and the first one seen done wakes the rest to poll
 * around its duration (adaptive only).
 *
 * Adaptive (default, once a job has completed): the client expects the next
 * job to take about as long as the recent ones (the shortest `timeTaken` of the last 8),
 * polls sparsely (gaps doubling from `initialDelayMs`) until that time,
 * then densely (from 2 % of it, at least 5 ms, growing by `factor`, capped at
 * `maxDelayMs`). Measured against the emulator: 0.3 s, 2 s and 10 s jobs are
 * noticed within a few per cent of their time with 2–7 requests.
 */
export interface PollPolicy {
  /** Delay before the first status request, in ms. Default 150. */
  initialDelayMs?: number;
  /** Growth of the delay per request. Default 1.5. */
  factor?: number;
  /** Largest delay between two status requests near or after the expected end, in ms. Default 2000. */
  maxDelayMs?: number;
  /** Learn the jobs' duration from completed jobs and poll around the expected end. Default true. */
  adaptive?: boolean;
}

export const DEFAULT_POLL: Required<PollPolicy> = { initialDelayMs: 150, factor: 1.5, maxDelayMs: 2000, adaptive: true };

/** The delays (ms) the blind poll policy produces, first to `count`-th. */
export function pollDelays(policy: PollPolicy = {}, count = 10): number[] {
  const p = { ...DEFAULT_POLL, ...policy };
  const out: number[] = [];
  let d = p.initialDelayMs;
  for (let i = 0; i < count; i++) {
    out.push(Math.round(Math.min(d, p.maxDelayMs)));
    d *= p.factor;
  }
  return out;
}

/**
 * The transport's options a `WebApiClient` passes on as they are: their
 * documentation and defaults are `TransportOptions`' (`TRANSPORT_DEFAULTS`),
 * so the two cannot drift apart.
 */
type PassedToTransport = Pick<TransportOptions, 'fetch' | 'timeout' | 'maxRetries' | 'retryBaseDelayMs' | 'retryMaxDelayMs' | 'retryAfterMaxMs' | 'onRetry'>;

/** Options of `WebApiClient`. Only `apiKey` is required; the transport's (`fetch`, `timeout`, retries, `onRetry`) as in `TransportOptions`. */
export interface ClientOptions extends PassedToTransport {
  /**
   * Base address including the version segment. Default `https://api.perfectlyclear.io/v2`. Plain `http://` is
   * refused (TypeError) unless it names this computer or the local network (`plain-http.ts`): the key would
   * cross the internet unencrypted.
   */
  baseURL?: string;
  /**
   * The account's API key, sent as `X-API-KEY` to the base address's origin
   * only (never to pre-signed upload addresses or public result URLs). Kept in
   * a private field: it does not appear in errors, `JSON.stringify` or `util.inspect`.
   */
  apiKey: string;
  /** How often `waitForJob` polls. Default 150 ms growing ×1.5 up to 2 s, adaptive once jobs have completed (see `PollPolicy`). */
  poll?: PollPolicy;
  /** Overall limit of `waitForJob` and of `correct()` (upload to result), in ms. Default 1 800 000 (30 min). */
  jobTimeoutMs?: number;
  /** Timer seam for tests: waits between retries and between polls. Default `setTimeout`. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export const DEFAULT_JOB_TIMEOUT_MS = 30 * 60_000;

/** What the resource classes share (internal). */
export interface WebApiContext {
  transport: Transport;
  poll: Required<PollPolicy>;
  /** Durations of this client's completed jobs, for the adaptive poll schedule. */
  durations: JobDurations;
  jobTimeoutMs: number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Whether an address is on the base address's origin (the only one that gets the key). */
  isOwnOrigin(url: string | HttpUrl): boolean;
}
