/**
 * The embedded emulator, when nothing else is configured: a process of its
 * own on loopback, started again at its address when it ends on its own (the
 * emulator's `SupervisedEmulator`; `@pfc/emulator/process` is Node built-ins
 * only, and the emulator with its native `sharp` is loaded only in that
 * process). A request waits while it is being started again, and a file whose
 * job it lost by crashing says so: a photo that crashes the imaging engine is
 * then named as such, not as a service that forgot an upload.
 */
import { type CorrectionBackend, type FetchLike, JobLostError, type RetryInfo, WebApiClient } from '@pfc/core';
import type { SupervisedEmulatorEvent } from '@pfc/emulator/process';
import { BatchUsageError } from './errors';

/** What the embedded emulator is started with and told through. */
export interface EmbeddedSelection {
  /** The placeholder key it gets (it accepts any). */
  apiKey: string;
  fetch: FetchLike;
  onRetry?: ((info: RetryInfo) => void) | undefined;
  /** Extra time each job spends processing, ms (demos and tests). */
  processingMs?: number | undefined;
  onEvent?: ((e: SupervisedEmulatorEvent) => void) | undefined;
}

/** An embedded emulator that may be starting again after a crash (`SupervisedEmulator`). */
export interface RestartingService {
  /** Settles when it is up; rejects when it was left stopped or `signal` aborts first. */
  ready(signal?: AbortSignal | null): Promise<void>;
}

/** An embedded emulator a host runs (`SupervisedEmulator`, or the VS Code extension's, which loads one at run time). */
export interface EmbeddedService extends RestartingService {
  /** Its Web API address, starting it if none runs. */
  url(): Promise<string>;
  /** How many times it ended on its own (crashed) so far, and how it last did ("signal SIGSEGV"). */
  crashes(): { count: number; last?: string };
}

/** The embedded emulator as a run uses it: its client, the backend (naming crashes), its address. */
export interface EmbeddedBackend {
  web: WebApiClient;
  backend: CorrectionBackend;
  url: string;
}

/** Starts the embedded emulator (Web API only, on 127.0.0.1); `close` stops it. Throws `BatchUsageError` when it cannot start here. */
export async function startEmbedded(sel: EmbeddedSelection): Promise<EmbeddedBackend & { close: () => Promise<void> }> {
  const { SupervisedEmulator, startEmulatorProcess } = await import('@pfc/emulator/process').catch((err: unknown) => {
    throw cannotStart(err);
  });
  const embedded = new SupervisedEmulator({
    start: startEmulatorProcess,
    process: { host: '127.0.0.1', container: false, bgr: false, ...(sel.processingMs ? { processingMs: sel.processingMs } : {}) },
    ...(sel.onEvent ? { onEvent: sel.onEvent } : {}),
  });
  const opened = await onEmbedded(embedded, sel).catch(async (err: unknown) => {
    await embedded.close();
    throw cannotStart(err);
  });
  return { ...opened, close: () => embedded.close() };
}

/** The Web API client and run backend on an embedded emulator (started by its first `url()`). */
export async function onEmbedded(service: EmbeddedService, sel: Pick<EmbeddedSelection, 'apiKey' | 'fetch' | 'onRetry'>): Promise<EmbeddedBackend> {
  const url = await service.url();
  const web = new WebApiClient({ apiKey: sel.apiKey, baseURL: url, fetch: afterRestarts(service, sel.fetch), ...(sel.onRetry ? { onRetry: sel.onRetry } : {}) });
  return { web, backend: namingCrashes(web, service), url };
}

/** Each request to an embedded emulator first waits while it is being started again (after a crash). */
export function afterRestarts(service: RestartingService, fetch: FetchLike): FetchLike {
  return async (input, init) => {
    await service.ready(init?.signal);
    return fetch(input, init);
  };
}

function cannotStart(err: unknown): BatchUsageError {
  return new BatchUsageError(`the embedded emulator cannot start here (${err instanceof Error ? err.message : String(err)}): give the URL of a running emulator instead`, 'bad-params');
}

/**
 * `web` as a run's backend, where a correction whose job was lost while the emulator crashed fails saying
 * that (still a `JobLostError`: another attempt, alone, may succeed), not with the request the new
 * emulator refused.
 */
function namingCrashes(web: WebApiClient, service: EmbeddedService): CorrectionBackend {
  return {
    kind: web.kind,
    usesJobSlot: web.usesJobSlot,
    validate: (params) => web.validate(params),
    listPresets: (options) => web.listPresets(options),
    correct: async (input, params, options) => {
      const before = service.crashes().count;
      try {
        return await web.correct(input, params, options);
      } catch (err) {
        const { count, last } = service.crashes();
        if (!(err instanceof JobLostError) || count === before) throw err;
        const why = `the local emulator stopped on its own (${last}) while this file was being corrected, and was started again: a file that does this on each attempt may crash the imaging engine`;
        throw new JobLostError(err.status, err.body, err.requestId, err.request, why, err.headers);
      }
    },
  };
}
