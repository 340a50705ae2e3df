/**
 * The embedded emulator: with no key and no container configured, the
 * extension corrects on a local emulator of the Web API on 127.0.0.1, started
 * on the first run that needs it, shared by every later run of the window and
 * stopped on deactivate.
 *
 * It runs in a child process of the extension host (`@pfc/emulator/process`):
 * the extension host is one event loop shared by every extension, and the
 * engine's work on a photo would hold it for 150–300 ms at a time, fill the
 * libuv pool its file operations share, and take every extension down with
 * it if a native module crashed. The child ends with the extension host. If
 * it ends on its own (a crash on some photo), it is started again at the
 * same address, so the run goes on: its requests wait for the new one
 * ({@link EmbeddedEmulator.ready}), and the files it was working on (their
 * jobs are gone) are sent again. A photo that crashes it every time fails
 * after its attempts; the run stops by itself when it crashes on every photo,
 * and one that keeps crashing with nothing to do is left stopped
 * ({@link EmbeddedEmulator.watch}).
 *
 * `@pfc/emulator` needs native modules (sharp) and the imaging engine's
 * models, which a platform-neutral .vsix cannot carry, so it is not bundled:
 * it is found at run time in a `node_modules` the extension can see — its
 * own folder or a parent (a platform package or a linked checkout), or a
 * folder on `NODE_PATH` (e.g. the global npm folder holding the `pfc` CLI).
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type RgbCopy, sharpRgbCopy } from '@pfc/batch';
import type { EmulatorProcess, EmulatorProcessExit, EmulatorProcessOptions } from '@pfc/emulator/process';
import type SharpModule from 'sharp';

/** What the extension uses of `@pfc/emulator/process`. */
interface EmulatorProcessModule {
  startEmulatorProcess(options: EmulatorProcessOptions): Promise<EmulatorProcess>;
}

/** The embedded emulator cannot be loaded in this installation. */
export class EmbeddedEmulatorUnavailableError extends Error {
  override name = 'EmbeddedEmulatorUnavailableError';
  constructor(searched: readonly string[]) {
    super(
      'the local emulator is not installed with this extension (it needs the @pfc/emulator package and its native modules; looked in '
      + `${searched.join(', ') || 'no folder'}). Run "Perfectly Clear: Set API Key", or start one with \`pfc emulator\` and set pfc.emulatorUrl.`,
    );
  }
}

/**
 * Where `@pfc/emulator/process`'s module would be, in lookup order: the extension's folder and its parents,
 * then `NODE_PATH`. An installation older than it has not this file and is passed over.
 */
export function emulatorCandidates(extensionPath: string, nodePath = process.env.NODE_PATH ?? ''): string[] {
  const out: string[] = [];
  for (let dir = extensionPath; ; dir = dirname(dir)) {
    out.push(join(dir, 'node_modules', '@pfc', 'emulator', 'dist', 'process.js'));
    if (dirname(dir) === dir) break;
  }
  for (const entry of nodePath.split(delimiter).filter(Boolean)) out.push(join(entry, '@pfc', 'emulator', 'dist', 'process.js'));
  return out;
}

/**
 * Emulators in a row that may end on their own without finishing a job before it is left stopped. A run
 * stops by itself after 10 files in a row whose jobs were lost on each of their 3 attempts (batch's
 * breaker): this is the backstop above that, for an emulator that crashes with nothing to do.
 */
const CRASH_LOOP = 40;

/** One emulator per window, started on first use. */
export class EmbeddedEmulator {
  private started: Promise<EmulatorProcess> | undefined;
  /** Emulators in a row that ended on their own before finishing a job. */
  private crashesWithoutWork = 0;
  /** Why it was left stopped (after {@link CRASH_LOOP} crashes in a row), until the next run starts it. */
  private leftStopped: string | undefined;
  /** One secret for the pre-signed addresses of every emulator at this address: one issued before a restart is then "no longer known", not forged. */
  private readonly signingSecret = randomBytes(32).toString('base64url');

  /** `log` gets a line when it starts, and when it ends on its own (the next run then starts another). */
  constructor(
    private readonly extensionPath: string,
    private readonly log: (line: string) => void = () => undefined,
    /** Crashes in a row without a finished job after which it is left stopped. */
    private readonly crashLoop = CRASH_LOOP,
  ) {}

  /** The Web API base address (`http://127.0.0.1:PORT/v2`), starting the emulator if needed. */
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

  /** The running emulator's process id, if one runs. */
  async pid(): Promise<number | undefined> {
    return this.started?.then((e) => e.pid, () => undefined);
  }

  /** Starts an emulator (`at`: the ports of the one it replaces) and watches it; forgotten if it cannot start. */
  private launch(at: { webPort?: number; storagePort?: number }): Promise<EmulatorProcess> {
    const starting = this.start(at);
    starting.then(
      (emu) => this.watch(starting, emu),
      () => {
        if (this.started === starting) this.started = undefined;
      },
    );
    return starting;
  }

  private async start({ webPort, storagePort }: { webPort?: number; storagePort?: number }): Promise<EmulatorProcess> {
    const { entry, searched } = this.installation();
    if (!entry) throw new EmbeddedEmulatorUnavailableError(searched.map((c) => dirname(dirname(c))));
    // A real ESM import (the package is ESM only); esbuild leaves a non-literal import() as it is.
    const mod = (await import(pathToFileURL(entry).href)) as EmulatorProcessModule;
    // Only the Web API, on loopback; its control routes stay off.
    const emu = await mod.startEmulatorProcess({
      host: '127.0.0.1',
      container: false,
      bgr: false,
      signingSecret: this.signingSecret,
      ...(webPort ? { webPort } : {}),
      ...(storagePort ? { storage: { port: storagePort } } : {}),
    });
    this.log(`embedded emulator started on ${emu.web} (process ${emu.pid}, data in ${emu.dataDir})`);
    return emu;
  }

  /**
   * An emulator that ends on its own (not by `dispose`) is started again at its address, so a run in
   * progress goes on. One that had finished a job crashed on some photo (which then fails, after its own
   * attempts, tried alone), and is always started again; after `crashLoop` in a row that finished none, it
   * is left stopped: a run in progress stops saying why, and the next run starts a new one. Where starting
   * it again fails, the same.
   */
  private watch(started: Promise<EmulatorProcess>, emu: EmulatorProcess): void {
    // `exited` settles once a killed one's temporary data folder (copies of the user's photos) is removed.
    void emu.exited.then((exit) => {
      if (this.started !== started) return;
      this.crashesWithoutWork = emu.finishedAJob() ? 0 : this.crashesWithoutWork + 1;
      if (this.crashesWithoutWork >= this.crashLoop) {
        this.started = undefined;
        this.crashesWithoutWork = 0;
        this.leftStopped = `the local emulator stopped on its own ${this.crashLoop} times in a row without finishing a job (${describeExit(exit)}), so it was left stopped; the next run starts it again`;
        this.log(`the embedded emulator stopped on its own (${describeExit(exit)}), ${this.crashLoop} times in a row without finishing a job; it is left stopped, and the next run starts it again`);
        return;
      }
      this.log(`the embedded emulator stopped on its own (${describeExit(exit)}); starting it again at the same address`);
      this.started = this.launch(portsOf(emu));
      this.started.catch((err: unknown) => this.log(`the embedded emulator could not start again (${err instanceof Error ? err.message : String(err)}); the next run starts a new one`));
    });
  }

  /**
   * The greyscale-to-RGB copy the Web API needs (batch's `rgbCopy`), made with the sharp the emulator's
   * installation carries, loaded when first used; undefined where there is none (a platform-neutral .vsix):
   * greyscale files then fail on the Web API, saying so.
   */
  rgbCopy(): RgbCopy | undefined {
    const { entry } = this.installation();
    if (!entry) return undefined;
    let copy: RgbCopy | undefined;
    return (...args) => {
      copy ??= sharpRgbCopy(createRequire(entry)('sharp') as typeof SharpModule);
      return copy(...args);
    };
  }

  /** `@pfc/emulator`'s entry, the first of the candidates that exists (looked up on each call: it may be installed later), and the candidates. */
  private installation(): { entry: string | undefined; searched: string[] } {
    const searched = emulatorCandidates(this.extensionPath);
    return { entry: searched.find((c) => existsSync(c)), searched };
  }

  /** Stop it (deactivate). Idempotent. */
  async dispose(): Promise<void> {
    const s = this.started;
    this.started = undefined;
    if (s) await s.then((e) => e.close(), () => undefined);
  }
}

/** The ports of an emulator's Web API and pre-signed storage. */
function portsOf(emu: EmulatorProcess): { webPort?: number; storagePort?: number } {
  const port = (url: string | undefined) => (url ? Number(new URL(url).port) || undefined : undefined);
  return { webPort: port(emu.urls.web), storagePort: port(emu.urls.storage) };
}

/** "exit code 1", "signal SIGKILL", with the end of what it wrote to stderr. */
function describeExit({ code, signal, stderr }: EmulatorProcessExit): string {
  const last = stderr.trim().split('\n').at(-1);
  return `${signal ? `signal ${signal}` : `exit code ${code}`}${last ? `: ${last}` : ''}`;
}
