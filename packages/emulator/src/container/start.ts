/**
 * Starting both self-hosted container emulations beside the Web API
 * (`startEmulator`), with their data under the emulator's data folder.
 */
import { join } from 'node:path';
import type { ImagingEngine } from '../engine';
import { createBgrServer, type BgrServer, type BgrServerOptions } from '../bgr/server';
import { createContainerServer, type ContainerServer } from './server';
import type { ContainerServerOptions } from './options';

/** What `startEmulator` passes down. */
export interface SelfHostedStartOptions {
  host?: string | undefined;
  /** Imaging engine of both containers (`startEmulator` passes the Web API's). Default: each server's default, the process-wide `createImagingEngine()`; `{}` for none. */
  engine?: ImagingEngine | undefined;
  now?: (() => number) | undefined;
  log?: ((line: string) => void) | undefined;
  /** The colour-correction container; `false` to not start it. Default: started on any free port. */
  container?: ContainerServerOptions | false | undefined;
  /** The background-removal container; `false` to not start it. Default: started on any free port. */
  bgr?: BgrServerOptions | false | undefined;
}

export interface SelfHostedEmulation {
  container?: ContainerServer;
  bgr?: BgrServer;
  /** `{container, bgr}` base URLs of what was started. */
  urls: { container?: string; bgr?: string };
  close(): Promise<void>;
}

export async function startSelfHosted(options: SelfHostedStartOptions, dataRoot: string): Promise<SelfHostedEmulation> {
  const started: SelfHostedEmulation = { urls: {}, close: async () => undefined };
  const closers: (() => Promise<void>)[] = [];
  started.close = async () => {
    await Promise.allSettled(closers.map((c) => c()));
  };
  try {
    if (options.container !== false) {
      const c = await createContainerServer({
        host: options.host,
        engine: options.engine,
        now: options.now,
        log: options.log,
        dataDir: join(dataRoot, 'container'),
        ...options.container,
      });
      closers.push(() => c.close());
      started.container = c;
      started.urls.container = c.url;
    }
    if (options.bgr !== false) {
      const b = await createBgrServer({ host: options.host, engine: options.engine, log: options.log, workDir: join(dataRoot, 'bgr'), ...options.bgr });
      closers.push(() => b.close());
      started.bgr = b;
      started.urls.bgr = b.url;
    }
  } catch (err) {
    await started.close();
    throw err;
  }
  return started;
}
