/**
 * Fault injection for tests and benchmarks: per-route rates of 429 (with
 * Retry-After), 500, 503 and dropped connections, added latency, and jobs that
 * end FAILED or REJECTED or never finish. A seed makes the draws repeatable.
 *
 * An injected `Retry-After` holds: until it has passed, the same API key's
 * requests to the same rule are answered the same status again (counted as
 * `earlyRetry`), so a client that ignores it keeps failing, as it would
 * against a rate limiter (observed-behaviour.md: "408, 429 and 5xx as
 * retryable (honour `Retry-After`)"). `retryAfterSeconds: 0` holds nothing.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { seededRandom } from '@pfc/core';
import type { RequestContext } from './http/router';
import { sendError } from './http/respond';

/** Faults for the requests whose route matches one pattern. Rates are shares from 0 to 1. */
export interface RouteFaults {
  /** Share of requests answered 429 with `Retry-After`. */
  rate429?: number;
  /** `Retry-After` of injected 429s and 503s, in seconds. Default 1. */
  retryAfterSeconds?: number;
  /** Share of requests answered 500. */
  rate500?: number;
  /** Share of requests answered 503 (with `Retry-After`). */
  rate503?: number;
  /** Share of requests whose connection is destroyed without an answer. */
  dropRate?: number;
  /** Delay added before every matching request is handled, in ms. */
  latencyMs?: number;
  /** The rule stops after injecting this many faults (latency not counted). Unlimited when absent. */
  count?: number;
}

/** Faults for jobs started through `GET /pfc`. Rates are shares from 0 to 1. */
export interface JobFaults {
  /** Share of jobs that end FAILED. */
  failRate?: number;
  /** Share of jobs that end REJECTED. */
  rejectRate?: number;
  /** Share of jobs that stay PROCESSING forever. */
  hangRate?: number;
  /** The rule stops after this many faulty jobs. Unlimited when absent. */
  count?: number;
}

/**
 * The whole fault configuration. `routes` keys are patterns with `*` as a
 * wildcard, matched against the route name (`pfc`, `status`, `presets.list`…),
 * the path (`/v2/status/*`, or without the `/v2` prefix) and `METHOD path`;
 * the first matching key (in insertion order) applies.
 */
export interface FaultConfig {
  /** Seed of the random draws; the same seed and request order give the same faults. Default: random. */
  seed?: number;
  routes?: Record<string, RouteFaults>;
  jobs?: JobFaults;
}

export type InjectedJobFault = 'fail' | 'reject' | 'hang';

/** Counts of injected faults by kind. */
export type FaultCounts = Record<'429' | '500' | '503' | 'drop' | 'latency' | 'jobFail' | 'jobReject' | 'jobHang' | 'earlyRetry', number>;

const RATE_KEYS = ['rate429', 'rate500', 'rate503', 'dropRate'] as const;
const JOB_RATE_KEYS = ['failRate', 'rejectRate', 'hangRate'] as const;

/** Checks a configuration from JSON or flags; throws an Error naming the bad field. */
export function validateFaultConfig(input: unknown): FaultConfig {
  if (!isObject(input)) throw new Error('fault configuration must be a JSON object');
  const out: FaultConfig = {};
  for (const key of Object.keys(input)) {
    if (!['seed', 'routes', 'jobs'].includes(key)) throw new Error(`unknown fault configuration field "${key}"; known: seed, routes, jobs`);
  }
  if (input.seed !== undefined) {
    if (!Number.isSafeInteger(input.seed)) throw new Error('seed must be an integer');
    out.seed = input.seed as number;
  }
  if (input.routes !== undefined) {
    if (!isObject(input.routes)) throw new Error('routes must be an object of pattern → faults');
    out.routes = {};
    for (const [pattern, rule] of Object.entries(input.routes)) {
      out.routes[pattern] = checkRule(`routes["${pattern}"]`, rule, [...RATE_KEYS, 'retryAfterSeconds', 'latencyMs', 'count'], RATE_KEYS) as RouteFaults;
    }
  }
  if (input.jobs !== undefined) out.jobs = checkRule('jobs', input.jobs, [...JOB_RATE_KEYS, 'count'], JOB_RATE_KEYS) as JobFaults;
  return out;
}

function checkRule(where: string, rule: unknown, allowed: readonly string[], rates: readonly string[]): Record<string, number> {
  if (!isObject(rule)) throw new Error(`${where} must be an object`);
  const out: Record<string, number> = {};
  let sum = 0;
  for (const [k, v] of Object.entries(rule)) {
    if (!allowed.includes(k)) throw new Error(`${where}: unknown field "${k}"; known: ${allowed.join(', ')}`);
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new Error(`${where}.${k} must be a number >= 0`);
    if (rates.includes(k)) {
      if (v > 1) throw new Error(`${where}.${k} must be a share from 0 to 1`);
      sum += v;
    }
    if (k === 'latencyMs' && v > 600_000) throw new Error(`${where}.latencyMs must be at most 600000`);
    if (k === 'retryAfterSeconds' && v > 3600) throw new Error(`${where}.retryAfterSeconds must be at most 3600`);
    if (k === 'count' && !Number.isInteger(v)) throw new Error(`${where}.count must be an integer`);
    out[k] = v;
  }
  if (sum > 1 + 1e-9) throw new Error(`${where}: the rates add up to more than 1`);
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Whom a hold is for: the caller's API key (as a digest; keys are never kept), or every keyless caller (status polls). */
function callerOf(req: IncomingMessage): string {
  const raw = req.headers['x-api-key'];
  const key = (Array.isArray(raw) ? raw[0] : raw)?.trim() ?? '';
  return key === '' ? '' : createHash('sha256').update(key, 'utf8').digest('hex');
}

function globToRegExp(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${escaped}$`);
}

/** Applies a fault configuration to requests and jobs; replaceable at run time. */
export class FaultInjector {
  private config: FaultConfig = {};
  private rules: { pattern: string; re: RegExp; faults: RouteFaults; used: number }[] = [];
  private jobUsed = 0;
  private random: () => number = Math.random;
  /** Injected 429/503 answers whose `Retry-After` has not passed yet, by rule pattern and caller ({@link callerOf}). */
  private readonly holds = new Map<string, { status: 429 | 503; until: number }>();
  readonly counts: FaultCounts = { '429': 0, '500': 0, '503': 0, drop: 0, latency: 0, jobFail: 0, jobReject: 0, jobHang: 0, earlyRetry: 0 };

  constructor(
    config: FaultConfig = {},
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms).unref()),
    /** Clock of the `Retry-After` holds (the emulator's `now`). */
    private readonly now: () => number = Date.now,
  ) {
    this.set(config);
  }

  /** Replaces the configuration (validated) and restarts the seeded sequence and rule counts. */
  set(config: FaultConfig): void {
    this.config = validateFaultConfig(config);
    this.rules = Object.entries(this.config.routes ?? {}).map(([pattern, faults]) => ({ pattern, re: globToRegExp(pattern), faults, used: 0 }));
    this.jobUsed = 0;
    this.holds.clear();
    this.random = this.config.seed === undefined ? Math.random : seededRandom(this.config.seed);
  }

  get(): FaultConfig {
    return structuredClone(this.config);
  }

  /** Route faults for one request; true when the request was answered (or dropped) here. */
  async beforeRequest(ctx: RequestContext, pathPrefix = '/v2'): Promise<boolean> {
    if (this.rules.length === 0) return false;
    const method = ctx.req.method ?? 'GET';
    const path = ctx.url.pathname.replace(/\/$/, '') || '/';
    const short = path.startsWith(`${pathPrefix}/`) ? path.slice(pathPrefix.length) : path;
    const candidates = [ctx.route.name, path, short, `${method} ${path}`, `${method} ${short}`];
    const rule = this.rules.find((r) => candidates.some((c) => r.re.test(c)));
    if (!rule) return false;
    const f = rule.faults;
    if (f.latencyMs) {
      this.counts.latency++;
      await this.sleep(f.latencyMs);
    }
    const holdKey = `${rule.pattern}\n${callerOf(ctx.req)}`;
    const hold = this.holds.get(holdKey);
    if (hold && this.now() < hold.until) {
      // Retried before the Retry-After passed: the same answer, with the time still left (even once `count` is used up).
      this.counts.earlyRetry++;
      ctx.req.resume();
      const left = String(Math.max(1, Math.ceil((hold.until - this.now()) / 1000)));
      const what = hold.status === 429 ? 'rate limit exceeded' : 'service unavailable';
      sendError(ctx.res, hold.status, `${what}: retried before the Retry-After of the last answer had passed (injected fault)`, {}, { 'Retry-After': left });
      return true;
    }
    if (hold) this.holds.delete(holdKey);
    if (f.count !== undefined && rule.used >= f.count) return false;
    const draw = this.random();
    let edge = 0;
    const retryAfter = String(f.retryAfterSeconds ?? 1);
    const pick = (rate: number | undefined): boolean => {
      edge += rate ?? 0;
      return draw < edge;
    };
    if (pick(f.dropRate)) {
      rule.used++;
      this.counts.drop++;
      ctx.req.socket.destroy();
      return true;
    }
    for (const [status, rate] of [[500, f.rate500], [503, f.rate503], [429, f.rate429]] as const) {
      if (!pick(rate)) continue;
      rule.used++;
      this.counts[String(status) as '429' | '500' | '503']++;
      ctx.req.resume();
      const headers: Record<string, string> = status === 500 ? {} : { 'Retry-After': retryAfter };
      const holdMs = (f.retryAfterSeconds ?? 1) * 1000;
      if (status !== 500 && holdMs > 0) this.holds.set(holdKey, { status, until: this.now() + holdMs });
      const message = status === 429 ? 'rate limit exceeded (injected fault)' : status === 503 ? 'service unavailable (injected fault)' : 'internal error (injected fault)';
      sendError(ctx.res, status, message, {}, headers);
      return true;
    }
    return false;
  }

  /** The fault a new job gets, if any. */
  forJob(): InjectedJobFault | undefined {
    const j = this.config.jobs;
    if (!j) return undefined;
    if (j.count !== undefined && this.jobUsed >= j.count) return undefined;
    const draw = this.random();
    let edge = 0;
    for (const [fault, rate, key] of [['fail', j.failRate, 'jobFail'], ['reject', j.rejectRate, 'jobReject'], ['hang', j.hangRate, 'jobHang']] as const) {
      edge += rate ?? 0;
      if (draw < edge) {
        this.jobUsed++;
        this.counts[key]++;
        return fault;
      }
    }
    return undefined;
  }
}
