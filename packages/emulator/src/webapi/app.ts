/** The Web API's state: stores, queue, signer, auth, faults and stats, built from the options. */
import type { ImagingEngine } from '../engine';
import { FaultInjector } from '../faults';
import { DEFAULT_LIMITS, type EmulatorLimits, type EmulatorOptions } from '../options';
import { Stats } from '../stats';
import type { DataStore } from '../storage';
import { AccountLimiter } from './account-limits';
import { KeyCheck } from './auth';
import { jobTimer } from './job-time';
import { JobQueue, type Outcome } from './jobs';
import { PresetStore } from './presets';
import { ResultStore, type ResultFile } from './results';
import { UrlSigner } from './signing';
import { UploadRegistry } from './uploads';
import { createJobWork } from './work';

/** A cached output: the file and the record fields of the job that made it. */
export interface CacheEntry {
  result: ResultFile;
  outcome: Omit<Extract<Outcome, { status: 'COMPLETED' }>, 'correctedFile'>;
}

export interface WebApiApp {
  /** `http://host:port/v2`; set once the server listens. */
  web: string;
  /** Base of the storage addresses (uploads, results): the storage origin, or `web` when same-origin; set once it listens. */
  storage: string;
  /** Object-storage rules on the pre-signed PUTs (`storage-rules.ts`); false = lenient. */
  strictStorage: boolean;
  /** The Content-Type file upload addresses are signed for ('' = none). */
  uploadContentType: string;
  store: DataStore;
  uploads: UploadRegistry;
  results: ResultStore;
  presets: PresetStore;
  queue: JobQueue;
  signer: UrlSigner;
  auth: KeyCheck;
  /** Per-key limits on jobs in progress and requests per second. */
  accounts: AccountLimiter;
  faults: FaultInjector;
  stats: Stats;
  cache: Map<string, CacheEntry>;
  limits: EmulatorLimits;
  engine: ImagingEngine | undefined;
  now: () => number;
  uploadUrlTtlSeconds: number;
  retentionMinutes: number;
}

const MINUTE = 60_000;

/** Checks numeric options, naming the bad one. */
function positive(name: string, v: number | undefined, fallback: number, { integer = false, min = 0, max = Infinity } = {}): number {
  if (v === undefined) return fallback;
  if (!Number.isFinite(v) || v < min || (integer && !Number.isInteger(v))) {
    throw new RangeError(`${name} must be ${integer ? 'an integer' : 'a number'} >= ${min} (got ${v})`);
  }
  if (v > max) throw new RangeError(`${name} must be at most ${max} (got ${v})`);
  return v;
}

/**
 * web-api-v2.md, Limits: files are reachable "for at least 24 hours and at
 * most 7 days"; background and reference uploads are "cached for 7 days".
 * Shorter is allowed (stricter); longer would keep what the service deletes.
 */
const MAX_RETENTION_MINUTES = 7 * 1440;

export function createWebApiApp(options: EmulatorOptions, store: DataStore): WebApiApp {
  const now = options.now ?? Date.now;
  const retentionMinutes = positive('retentionMinutes', options.retentionMinutes, 1440, { max: MAX_RETENTION_MINUTES });
  const uploadRetentionMinutes = positive('uploadRetentionMinutes', options.uploadRetentionMinutes, MAX_RETENTION_MINUTES, { max: MAX_RETENTION_MINUTES });
  const workers = positive('workers', options.workers, 2, { integer: true, min: 1 });
  const jobTimeoutMs = positive('jobTimeoutMs', options.jobTimeoutMs, 10 * MINUTE);
  const processing = {
    medianMs: positive('processingMs', options.processingMs, 0),
    sigma: positive('processingSigma', options.processingSigma, 0),
    perMegapixelMs: positive('processingMsPerMegapixel', options.processingMsPerMegapixel, 0),
    seed: positive('processingSeed', options.processingSeed, 1, { integer: true }),
  };
  const uploadUrlTtlSeconds = positive('uploadUrlTtlSeconds', options.uploadUrlTtlSeconds, 3600, { min: 1 });
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  for (const [k, v] of Object.entries(limits)) positive(`limits.${k}`, v, 0, { min: 1 });
  if ((options.apiKeys ?? []).some((k) => k.trim() === '')) throw new RangeError('apiKeys must not contain an empty key');

  const accountLimits = options.accountLimits ?? {};
  for (const [k, v] of Object.entries(accountLimits)) positive(`accountLimits.${k}`, v as number | undefined, 0, { integer: k === 'jobsInProgress', min: k === 'jobsInProgress' ? 1 : 0.001 });
  const accounts = new AccountLimiter(accountLimits, now);
  const app = {
    web: '',
    storage: '',
    strictStorage: options.storage?.lenient !== true,
    uploadContentType: options.storage?.signedContentType ?? '',
    store,
    uploads: new UploadRegistry(store, now, uploadRetentionMinutes * MINUTE),
    results: new ResultStore(store, now, retentionMinutes * MINUTE),
    presets: new PresetStore(now),
    signer: new UrlSigner(now, options.signingSecret),
    accounts,
    auth: new KeyCheck(options.apiKeys ?? [], (account) => accounts.request(account)),
    faults: new FaultInjector(options.faults ?? {}, undefined, now),
    stats: new Stats(),
    cache: new Map<string, CacheEntry>(),
    limits,
    engine: options.engine,
    now,
    uploadUrlTtlSeconds,
    retentionMinutes,
  } as Omit<WebApiApp, 'queue'> as WebApiApp;
  app.queue = new JobQueue({ workers, processingMs: jobTimer(processing), now, work: createJobWork(app), jobTimeoutMs });
  return app;
}

/** Deletes expired results and uploads, and forgets old finished jobs. */
export async function sweep(app: WebApiApp): Promise<void> {
  await app.results.sweep();
  await app.uploads.sweep();
  app.queue.prune(app.now() - 7 * 1440 * MINUTE);
  for (const [key, entry] of app.cache) if (!app.results.live(entry.result.outputId)) app.cache.delete(key);
}
