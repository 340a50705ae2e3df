/**
 * Several self-hosted instances from what the user configured: URL lists
 * (repeated flags, comma-separated environment variables, lists in settings)
 * become a `Fleet` of clients, each health-checked and with its own
 * concurrency. One URL stays a single client, as before.
 */
import { BgrClient, type BgrClientOptions, ContainerClient, type ContainerClientOptions, Fleet, type FleetEvent } from '@pfc/core';
import { BatchUsageError } from './errors';
import { CLI_TERMS, type HostTerms } from './host-terms';

/** Calls a colour-correction container instance of a fleet starts at unless told otherwise (then chosen from its measured speed). */
export const DEFAULT_CONTAINER_INSTANCE_JOBS = 2;
/** One GPU job at a time is what a single BGR container does well: where a BGR instance starts. */
export const DEFAULT_BGR_INSTANCE_JOBS = 1;
/** Most files a colour container instance is given at once when they are chosen from its measured speed (a number given per instance may go to {@link MAX_INSTANCE_JOBS}). */
export const AUTO_CONTAINER_INSTANCE_JOBS = 8;
/** Most files a BGR instance is given at once when chosen from its measured speed: one on its GPU, the rest waiting so it never idles between the client's files. */
export const AUTO_BGR_INSTANCE_JOBS = 4;

/**
 * A URL list as given: a string (commas separate several), or a list of them; blanks dropped, duplicates refused.
 * `flag`: the option's name in the host's terms (`HostTerms.containerUrl`), which errors name.
 */
export function urlList(value: string | readonly string[] | undefined, flag: string): string[] {
  const items = (typeof value === 'string' ? [value] : (value ?? [])).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
  const seen = new Set<string>();
  for (const url of items) {
    let key: string;
    try {
      key = new URL(url).href.replace(/\/+$/, '');
    } catch {
      throw new BatchUsageError(`${flag} ${JSON.stringify(url)} is not a URL: give an address such as http://gpu-1:8081`, 'bad-params');
    }
    if (seen.has(key)) throw new BatchUsageError(`${flag} ${url} is given twice: each instance once`, 'bad-params');
    seen.add(key);
  }
  return items;
}

/** Most files one instance may be given at once. */
export const MAX_INSTANCE_JOBS = 64;

/** Files each instance works on at once, as configured: one number (or `auto`) for every instance, or one per instance (`"4,auto,2"`, or a list). */
export type InstanceJobs = number | string | readonly (number | 'auto')[];

/** Files at once for one instance: a number, or `'auto'`: chosen from its measured speed (see core's `AutoWidth`). */
export type InstanceJobsValue = number | 'auto';

/**
 * Files at once for each instance, in the order of the URLs: colour
 * containers first, then background-removal containers. One value applies to
 * every instance; a list must have one value per instance. Unset (or `auto`):
 * chosen from each instance's measured speed. Throws `BatchUsageError` naming
 * the option (in the host's `terms`) and the allowed range or count, before anything is sent.
 */
export function instanceJobsFor(
  value: InstanceJobs | undefined,
  counts: { colour: number; bgr: number },
  terms: HostTerms = CLI_TERMS,
): { colour: InstanceJobsValue[]; bgr: InstanceJobsValue[] } {
  const fill = (n: number, v: InstanceJobsValue): InstanceJobsValue[] => Array.from({ length: n }, () => v);
  if (value === undefined) return { colour: fill(counts.colour, 'auto'), bgr: fill(counts.bgr, 'auto') };
  const items = typeof value === 'number' ? [value] : typeof value === 'string' ? value.split(',').map((v) => v.trim()) : [...value];
  const jobs = items.map((v) => jobsValue(v, terms));
  if (jobs.length === 1) return { colour: fill(counts.colour, jobs[0]!), bgr: fill(counts.bgr, jobs[0]!) };
  const total = counts.colour + counts.bgr;
  if (jobs.length !== total) {
    const given = [counts.colour > 0 ? `${counts.colour} ${terms.containerUrl}` : '', counts.bgr > 0 ? `${counts.bgr} ${terms.bgrUrl}` : ''].filter(Boolean).join(' and ') || 'no URL';
    throw new BatchUsageError(`${terms.instanceJobs} has ${jobs.length} values for ${total} instance(s) (${given}): give one number for every instance, or one per instance in the order of the URLs (colour containers first, then background-removal containers)`, 'bad-params');
  }
  return { colour: jobs.slice(0, counts.colour), bgr: jobs.slice(counts.colour) };
}

function jobsValue(v: number | string, terms: HostTerms): InstanceJobsValue {
  if (v === 'auto') return v;
  const n = typeof v === 'number' ? v : /^\d+$/.test(v) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_INSTANCE_JOBS) {
    throw new BatchUsageError(`${terms.instanceJobs} values must be integers from 1 to ${MAX_INSTANCE_JOBS} or auto, one value or a comma-separated list such as 4,2,2 (got ${JSON.stringify(v)})`, 'bad-params');
  }
  return n;
}

export interface FleetSetup {
  /** Calls at once per instance, in the order of the URLs (`auto`: chosen from its measured speed). */
  jobs: readonly InstanceJobsValue[];
  /** Time between health checks while work runs, ms. Default 5,000. */
  healthIntervalMs?: number | undefined;
  /** Told when an instance goes down, comes back, or a file moves. */
  onEvent?: ((e: FleetEvent) => void) | undefined;
}

/** One client for one URL; a fleet (health-checked with `GET /version`) for several. */
export function containerTarget(urls: string[], options: Omit<ContainerClientOptions, 'baseURL'>, setup: FleetSetup): ContainerClient | Fleet<ContainerClient> {
  return target(urls, (baseURL) => new ContainerClient({ ...options, baseURL }), setup, { start: DEFAULT_CONTAINER_INSTANCE_JOBS, max: AUTO_CONTAINER_INSTANCE_JOBS });
}

/** One client for one URL; a fleet (health-checked with `GET /Status`, each instance activating its own licence) for several. */
export function bgrTarget(urls: string[], options: Omit<BgrClientOptions, 'baseURL'>, setup: FleetSetup): BgrClient | Fleet<BgrClient> {
  return target(urls, (baseURL) => new BgrClient({ ...options, baseURL }), setup, { start: DEFAULT_BGR_INSTANCE_JOBS, max: AUTO_BGR_INSTANCE_JOBS });
}

/** A client that can be one instance of a fleet: its address names it, its own probe checks it. */
type InstanceClient = { transport: { baseURL: string }; health(options: { signal: AbortSignal }): Promise<boolean> };

/** Where an instance of this kind starts, and the most it is given, when its jobs are `auto`. */
interface AutoJobs {
  start: number;
  max: number;
}

function target<C extends InstanceClient>(urls: string[], clientFor: (baseURL: string) => C, setup: FleetSetup, auto: AutoJobs): C | Fleet<C> {
  if (urls.length === 1) return clientFor(urls[0]!);
  return new Fleet(
    urls.map((url, i) => {
      const client = clientFor(url);
      const jobs = setup.jobs[i]!;
      const width = jobs === 'auto' ? { concurrency: auto.start, maxConcurrency: auto.max } : { concurrency: jobs };
      return { name: client.transport.baseURL, client, ...width, health: (signal: AbortSignal) => client.health({ signal }) };
    }),
    fleetOptions(setup),
  );
}

function fleetOptions(setup: FleetSetup): ConstructorParameters<typeof Fleet>[1] {
  return { ...(setup.healthIntervalMs !== undefined ? { healthIntervalMs: setup.healthIntervalMs } : {}), ...(setup.onEvent ? { onEvent: setup.onEvent } : {}) };
}

/** The URLs of a target, for descriptions. */
export function describeTarget(target: ContainerClient | BgrClient | Fleet<unknown>): string {
  if (target instanceof Fleet) return `${target.status().length} instances (${target.status().map((s) => s.name).join(', ')})`;
  return target.transport.baseURL;
}
