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
  /**
   * More colour-correction container instances (a fleet, for tests and
   * benchmarks), each on its own port (any free one unless given) with its
   * own folders; each entry's options override `container`'s. Needs `container`.
   */
  containerInstances?: ContainerServerOptions[] | undefined;
}

export interface SelfHostedEmulation {
  container?: ContainerServer;
  /** Every colour-correction instance: `container` first, then `containerInstances` in order. */
  containers: ContainerServer[];
  bgr?: BgrServer;
  /** `{container, bgr}` base URLs of what was started; further colour instances as `container2`, `container3`… */
  urls: { container?: string; bgr?: string; [instance: `container${number}`]: string };
  close(): Promise<void>;
}

export async function startSelfHosted(options: SelfHostedStartOptions, dataRoot: string): Promise<SelfHostedEmulation> {
  const started: SelfHostedEmulation = { urls: {}, containers: [], close: async () => undefined };
  const closers: (() => Promise<void>)[] = [];
  started.close = async () => {
    await Promise.allSettled(closers.map((c) => c()));
  };
  try {
    if (options.container !== false) {
      const base = { host: options.host, engine: options.engine, now: options.now, log: options.log, ...options.container };
      for (const [i, own] of [{}, ...(options.containerInstances ?? [])].entries()) {
        // Each instance has its own folders; the first keeps the given port, the others take any free one unless told.
        const c = await createContainerServer({ ...base, ...(i > 0 ? { port: 0, inputDir: undefined, outputDir: undefined } : {}), dataDir: join(dataRoot, i === 0 ? 'container' : `container${i + 1}`), ...own });
        closers.push(() => c.close());
        started.containers.push(c);
        if (i === 0) {
          started.container = c;
          started.urls.container = c.url;
        } else started.urls[`container${i + 1}`] = c.url;
      }
    } else if (options.containerInstances?.length) {
      throw new Error('containerInstances needs the colour-correction container (container: false was given)');
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
