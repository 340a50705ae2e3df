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
import { existsSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { SupervisedEmulator, SupervisedEmulatorOptions } from '@pfc/emulator/process';

/** What the extension uses of `@pfc/emulator/process`. */
type EmulatorProcessModule = typeof import('@pfc/emulator/process');

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

/** One emulator per window, started on first use. */
export class EmbeddedEmulator {
  /** The supervisor of its processes, made on first use (the module is found at run time). */
  private supervisor: Promise<SupervisedEmulator> | undefined;
  /** The supervisor once made. */
  private made: SupervisedEmulator | undefined;

  /** `log` gets a line when it starts, and when it ends on its own (the next run then starts another). */
  constructor(
    private readonly extensionPath: string,
    private readonly log: (line: string) => void = () => undefined,
    /** Crashes in a row without a finished job after which it is left stopped (default: the emulator's `CRASH_LOOP`). */
    private readonly crashLoop?: number,
  ) {}

  /** The Web API base address (`http://127.0.0.1:PORT/v2`), starting the emulator if needed. */
  async url(): Promise<string> {
    this.supervisor ??= this.supervise();
    // Not kept when it cannot load: the emulator may be installed before the next run.
    const supervisor = await this.supervisor.catch((err: unknown) => {
      this.supervisor = undefined;
      throw err;
    });
    return supervisor.url();
  }

  /** Settles when the emulator is up (it may be starting again after a crash); see `SupervisedEmulator.ready`. */
  async ready(signal?: AbortSignal | null): Promise<void> {
    const supervisor = await this.supervisor?.catch(() => undefined);
    return supervisor?.ready(signal);
  }

  /** How many times it ended on its own (crashed), and how it last did; see `SupervisedEmulator.crashes`. */
  crashes(): ReturnType<SupervisedEmulator['crashes']> {
    return this.made?.crashes() ?? { count: 0 };
  }

  /** The running emulator's process id, if one runs. */
  async pid(): Promise<number | undefined> {
    const supervisor = await this.supervisor?.catch(() => undefined);
    return supervisor?.pid();
  }

  /**
   * The supervisor: it runs the emulator in a process of its own on loopback, only the Web API (its control
   * routes off), starts it again at the same address when it ends on its own, and leaves it stopped after
   * `crashLoop` crashes in a row without a finished job.
   */
  private async supervise(): Promise<SupervisedEmulator> {
    const { entry, searched } = this.installation();
    if (!entry) throw new EmbeddedEmulatorUnavailableError(searched.map((c) => dirname(dirname(c))));
    // A real ESM import (the package is ESM only); esbuild leaves a non-literal import() as it is.
    const mod = (await import(pathToFileURL(entry).href)) as Partial<EmulatorProcessModule>;
    if (!mod.SupervisedEmulator || !mod.startEmulatorProcess) throw new Error(`the local emulator at ${dirname(dirname(entry))} is older than this extension: install the version that goes with it (the pfc command-line tools, or the platform package of the extension), or set pfc.emulatorUrl`);
    const options: SupervisedEmulatorOptions = {
      start: mod.startEmulatorProcess,
      process: { host: '127.0.0.1', container: false, bgr: false },
      onEvent: (e) => this.log(e.message),
      ...(this.crashLoop !== undefined ? { crashLoop: this.crashLoop } : {}),
    };
    this.made = new mod.SupervisedEmulator(options);
    return this.made;
  }

  /** `@pfc/emulator`'s entry, the first of the candidates that exists (looked up on each call: it may be installed later), and the candidates. */
  /** Whether this installation has the emulator to start (it may still fail to start). */
  installed(): boolean {
    return this.installation().entry !== undefined;
  }

  private installation(): { entry: string | undefined; searched: string[] } {
    const searched = emulatorCandidates(this.extensionPath);
    return { entry: searched.find((c) => existsSync(c)), searched };
  }

  /** Stop it (deactivate). Idempotent. */
  async dispose(): Promise<void> {
    const supervisor = this.supervisor;
    this.supervisor = undefined;
    this.made = undefined;
    await supervisor?.then((s) => s.close(), () => undefined);
  }
}
