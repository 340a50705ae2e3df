/**
 * An emulator process that is started again when it ends on its own: the
 * embedded emulator of a host (the CLI, VS Code) that must outlive a crash on
 * some photo. A native fault in an image library takes the process down with
 * every job it held; the new one listens at the same address, so a run in
 * progress goes on: its requests wait for it ({@link SupervisedEmulator.ready})
 * and the files whose jobs were lost are sent again (batch's lost-job retries,
 * each tried alone). A photo that crashes it every time fails after its
 * attempts; one that keeps crashing with nothing to do is left stopped.
 *
 * Node built-ins only, like process.ts: a host loads it without the emulator.
 */
import { randomBytes } from 'node:crypto';
import type { EmulatorProcess, EmulatorProcessExit, EmulatorProcessOptions } from './process';

/**
 * Emulators in a row that may end on their own without finishing a job before it is left stopped. A run
 * stops by itself after 10 files in a row whose jobs were lost on each of their 3 attempts (batch's
 * breaker): this is the backstop above that, for an emulator that crashes with nothing to do.
 */
export const CRASH_LOOP = 40;

/** What happened to a supervised emulator, with a line for people that says it. */
export type SupervisedEmulatorEvent =
  | { type: 'started'; pid: number; web: string; dataDir: string; message: string }
  | { type: 'ended'; exit: EmulatorProcessExit; message: string }
  | { type: 'left-stopped'; exit: EmulatorProcessExit; message: string }
  | { type: 'restart-failed'; error: Error; message: string };

export interface SupervisedEmulatorOptions {
  /** Starts one emulator process (`startEmulatorProcess`, or a host's copy of it found at run time). */
  start: (options: EmulatorProcessOptions) => Promise<EmulatorProcess>;
  /** The options of every process it starts; the ports of a restart are those of the one it replaces. */
  process?: EmulatorProcessOptions;
  /** Told when one starts, ends on its own, is left stopped, or cannot start again. */
  onEvent?: (event: SupervisedEmulatorEvent) => void;
  /** Crashes in a row without a finished job after which it is left stopped. Default {@link CRASH_LOOP}. */
  crashLoop?: number;
}

/** One emulator process at a time, started on first use and again when it ends on its own. */
export class SupervisedEmulator {
  private started: Promise<EmulatorProcess> | undefined;
  /** Emulators in a row that ended on their own before finishing a job. */
  private crashesWithoutWork = 0;
  /** Why it was left stopped, until the next {@link url} starts it. */
  private leftStopped: string | undefined;
  /** Emulators that ended on their own, and how the last one did. */
  private ended: { count: number; last?: string } = { count: 0 };
  private readonly crashLoop: number;
  private readonly processOptions: EmulatorProcessOptions;

  constructor(private readonly options: SupervisedEmulatorOptions) {
    this.crashLoop = options.crashLoop ?? CRASH_LOOP;
    // One secret for the pre-signed addresses of every emulator at this address: one issued before a restart is then "no longer known", not forged.
    this.processOptions = { signingSecret: randomBytes(32).toString('base64url'), ...options.process };
  }

  /** The Web API base address (`http://127.0.0.1:PORT/v2`), starting the emulator if none runs (again, after it was left stopped). */
  async url(): Promise<string> {
    if (!this.started) {
      this.leftStopped = undefined;
      this.started = this.launch({});
    }
    return (await this.started).web;
  }

  /**
   * Settles when the emulator being started (again, after it ended on its own) is up — at once when none
   * is starting — so a request waits for it instead of failing on its closed port: on a busy machine a
   * restart (a fresh process loading sharp and the engine's models) may take longer than a file's two
   * attempts with their requests' retries (about 10 s), and a run stops after 3 files in a row fail to
   * reach the service. Rejects with the signal's reason when it aborts first (the request's inactivity
   * limit, a cancel), and with the reason it was left stopped, if it was: the run then stops saying so.
   */
  ready(signal?: AbortSignal | null): Promise<void> {
    if (!this.started && this.leftStopped) return Promise.reject(new Error(this.leftStopped));
    const starting = this.started?.then(() => undefined, () => undefined);
    if (!starting || !signal) return starting ?? Promise.resolve();
    return new Promise((resolve, reject) => {
      const onAbort = (): void => reject(signal.reason);
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      void starting.then(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }

  /**
   * How many emulators ended on their own so far (crashed), and how the last one did ("signal SIGSEGV",
   * "exit code 1"): a host compares the count before and after a correction to tell a job lost in a crash
   * from one the service forgot.
   */
  crashes(): { count: number; last?: string } {
    return { ...this.ended };
  }

  /** The running emulator's process id, if one runs. */
  async pid(): Promise<number | undefined> {
    return this.started?.then((e) => e.pid, () => undefined);
  }

  /** Stops it (and does not start it again). Idempotent. */
  async close(): Promise<void> {
    const s = this.started;
    this.started = undefined;
    if (s) await s.then((e) => e.close(), () => undefined);
  }

  /** Starts an emulator (`at`: the ports of the one it replaces) and watches it; forgotten if it cannot start. */
  private launch(at: Ports): Promise<EmulatorProcess> {
    const starting = this.startAt(at);
    starting.then(
      (emu) => this.watch(starting, emu),
      () => {
        if (this.started === starting) this.started = undefined;
      },
    );
    return starting;
  }

  private async startAt({ webPort, storagePort }: Ports): Promise<EmulatorProcess> {
    const base = this.processOptions;
    const emu = await this.options.start({
      ...base,
      ...(webPort ? { webPort } : {}),
      ...(storagePort ? { storage: { ...base.storage, port: storagePort } } : {}),
    });
    this.options.onEvent?.({ type: 'started', pid: emu.pid, web: emu.web, dataDir: emu.dataDir, message: `embedded emulator started on ${emu.web} (process ${emu.pid}, data in ${emu.dataDir})` });
    return emu;
  }

  /**
   * An emulator that ends on its own (not by `close`) is started again at its address. One that had
   * finished a job crashed on some photo, and is always started again; after `crashLoop` in a row that
   * finished none, it is left stopped: a run in progress stops saying why.
   */
  private watch(started: Promise<EmulatorProcess>, emu: EmulatorProcess): void {
    // `exited` settles once a killed one's temporary data folder (copies of the user's photos) is removed.
    void emu.exited.then((exit) => {
      if (this.started !== started) return;
      this.ended = { count: this.ended.count + 1, last: exitCause(exit) };
      this.crashesWithoutWork = emu.finishedAJob() ? 0 : this.crashesWithoutWork + 1;
      if (this.crashesWithoutWork >= this.crashLoop) return this.leaveStopped(exit);
      this.options.onEvent?.({ type: 'ended', exit, message: `the embedded emulator stopped on its own (${describeExit(exit)}); starting it again at the same address` });
      this.started = this.launch(portsOf(emu));
      this.started.catch((err: unknown) => {
        const error = err instanceof Error ? err : new Error(String(err));
        this.options.onEvent?.({ type: 'restart-failed', error, message: `the embedded emulator could not start again (${error.message}); the next run starts a new one` });
      });
    });
  }

  private leaveStopped(exit: EmulatorProcessExit): void {
    this.started = undefined;
    this.crashesWithoutWork = 0;
    this.leftStopped = `the local emulator stopped on its own ${this.crashLoop} times in a row without finishing a job (${describeExit(exit)}), so it was left stopped; the next run starts it again`;
    this.options.onEvent?.({ type: 'left-stopped', exit, message: `the embedded emulator stopped on its own (${describeExit(exit)}), ${this.crashLoop} times in a row without finishing a job; it is left stopped, and the next run starts it again` });
  }
}

interface Ports {
  webPort?: number;
  storagePort?: number;
}

/** The ports of an emulator's Web API and pre-signed storage. */
function portsOf(emu: EmulatorProcess): Ports {
  const port = (url: string | undefined) => (url ? Number(new URL(url).port) || undefined : undefined);
  return { webPort: port(emu.urls.web), storagePort: port(emu.urls.storage) };
}

/** "exit code 1", "signal SIGKILL". */
function exitCause({ code, signal }: EmulatorProcessExit): string {
  return signal ? `signal ${signal}` : `exit code ${code}`;
}

/** {@link exitCause}, with the end of what it wrote to stderr. */
function describeExit(exit: EmulatorProcessExit): string {
  const last = exit.stderr.trim().split('\n').at(-1);
  return `${exitCause(exit)}${last ? `: ${last}` : ''}`;
}
