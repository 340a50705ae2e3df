/**
 * The emulator in a process of its own (`startEmulatorProcess`), for a host
 * that must not do its image work on its own thread: VS Code's extension host
 * runs every extension on one event loop, and "an extension can monopolize
 * the extension host thread, block all other extensions"
 * (github.com/microsoft/vscode/wiki/Explain-extension-causes-high-cpu-load).
 * The engine's full-size passes run on its caller's thread between turns of
 * the event loop (about 150–300 ms each at 24 MP), and its decodes and encodes
 * fill libuv's thread pool, which the host's file operations share. A process
 * of its own also keeps a native crash (libvips, a model) out of the host and
 * frees the memory of a run when it is stopped.
 *
 * This module imports Node's built-ins only, so a host can load it without
 * loading the emulator (sharp, the engine's models) into its own process.
 *
 * Lifetime: the child is forked with an IPC channel and stops (closing its
 * servers and removing its temporary data folder) when the channel closes,
 * so it ends with its parent even when the parent is killed. A child killed
 * outright leaves its temporary data folder; this side removes it. Its options
 * (API keys, the signing secret) travel over that channel, not on its
 * command line, which every local user can read.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { EmulatorOptions } from './options';
import { removeScratchDirOf, removeScratchDirOfSync } from './scratch-owner';

export { CRASH_LOOP, SupervisedEmulator, type SupervisedEmulatorEvent, type SupervisedEmulatorOptions } from './supervised';

/** What the child is started with: `startEmulator`'s options that survive JSON (no engine, clock or log function). */
export interface EmulatorProcessOptions extends Pick<EmulatorOptions, 'host' | 'webPort' | 'apiKeys' | 'dataDir' | 'workers' | 'storage' | 'signingSecret' | 'processingMs'> {
  /** The container emulations; default false (off) here, unlike `startEmulator`. */
  container?: false | { port?: number };
  bgr?: false | { port?: number };
  /** Extra environment of the child (on top of this process's). */
  env?: Record<string, string>;
  /** How long the child may take to listen; default 60 s. */
  readyTimeoutMs?: number;
}

/** The servers' addresses, as `EmulatorHandle.urls`. */
export interface EmulatorProcessUrls {
  web: string;
  storage?: string;
  container?: string;
  bgr?: string;
}

/** How the child ended. */
export interface EmulatorProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The end of what it wrote to stderr (at most 4,000 characters). */
  stderr: string;
}

/** A running emulator process. */
export interface EmulatorProcess {
  /** Base URL of the Web API v2. */
  web: string;
  urls: EmulatorProcessUrls;
  /** The child's process id. */
  pid: number;
  /** Its data folder (uploads, results); a temporary one is removed when it stops, however it or its parent ended. */
  dataDir: string;
  /** Settles when the child has exited, however it ended (and a temporary data folder it left is removed). */
  exited: Promise<EmulatorProcessExit>;
  /** Stops the child (its servers closed, its temporary data folder removed); killed after `graceMs`. Idempotent. */
  close(graceMs?: number): Promise<EmulatorProcessExit>;
  /**
   * Whether it has finished a job (completed, failed or rejected; told within 0.2 s): one that then ends on
   * its own crashed on something, not on everything it is given.
   */
  finishedAJob(): boolean;
}

/** The message the child sends once every server listens, or when it cannot start. */
export type ChildMessage = { type: 'ready'; urls: EmulatorProcessUrls; dataDir: string } | { type: 'failed'; message: string } | { type: 'finished-a-job' };

/** What the parent sends first: the options, over the IPC channel (a command line is readable by every local user). */
export interface StartMessage {
  type: 'start';
  options: Omit<EmulatorProcessOptions, 'env' | 'readyTimeoutMs'>;
}

const STDERR_KEPT = 4_000;
const CHILD_SCRIPT = fileURLToPath(new URL('./child.js', import.meta.url));

/** Starts the emulator in a child process; resolves once it listens, rejects (with its error) if it cannot start. */
export async function startEmulatorProcess(options: EmulatorProcessOptions = {}): Promise<EmulatorProcess> {
  const { env, readyTimeoutMs = 60_000, ...emulatorOptions } = options;
  const child = fork(CHILD_SCRIPT, [], {
    // Not the host's flags (an inspector port, a loader): the child is a plain Node process.
    execArgv: [],
    // In Electron (VS Code's extension host) process.execPath is the app; this makes it Node, as VS Code's
    // own extensions fork their servers (extensions/typescript-language-features/src/utils/electron.ts).
    env: { ...process.env, ...env, ELECTRON_RUN_AS_NODE: '1' },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    serialization: 'json',
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    stderr = (stderr + d).slice(-STDERR_KEPT);
  });
  let started: { dataDir: string } | undefined;
  const exited = new Promise<EmulatorProcessExit>((resolve) => {
    child.once('exit', (code, signal) => {
      // A child killed outright could not remove its temporary data folder (copies of the user's photos): done here, at once.
      const removed = started && !emulatorOptions.dataDir ? removeScratchDirOf(started.dataDir, child.pid!).catch(() => false) : Promise.resolve(false);
      void removed.then(() => resolve({ code, signal, stderr }));
    });
  });
  const close = stopper(child, exited);
  const offExit = killOnExit(child, () => (started && !emulatorOptions.dataDir ? started.dataDir : undefined));
  void exited.then(offExit);
  let finished = false;
  child.on('message', (m: ChildMessage) => {
    if (m.type === 'finished-a-job') finished = true;
  });
  child.send({ type: 'start', options: { container: false, bgr: false, ...emulatorOptions } } satisfies StartMessage);
  try {
    const { urls, dataDir } = await ready(child, exited, readyTimeoutMs);
    started = { dataDir };
    return { web: urls.web, urls, pid: child.pid!, dataDir, exited, close, finishedAJob: () => finished };
  } catch (err) {
    await close(1_000);
    throw err;
  }
}

/**
 * When this process ends by `process.exit` (a second Ctrl-C, an uncaught error) the child would stop by
 * itself once its channel closes, but after this process is gone, removing its temporary data folder late.
 * It is killed and its folder removed here, before this process ends. Returns the undo.
 */
function killOnExit(child: ReturnType<typeof fork>, tempDataDir: () => string | undefined): () => void {
  const onExit = (): void => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGKILL');
    const dir = tempDataDir();
    try {
      if (dir) removeScratchDirOfSync(dir, child.pid!);
    } catch {
      // Nothing more can be done while exiting; the next emulator start removes it (owner marker, dead pid).
    }
  };
  process.on('exit', onExit);
  return () => process.off('exit', onExit);
}

/** Waits for the child's `ready` message. */
function ready(child: ReturnType<typeof fork>, exited: Promise<EmulatorProcessExit>, timeoutMs: number): Promise<{ urls: EmulatorProcessUrls; dataDir: string }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the emulator process did not start within ${timeoutMs} ms`)), timeoutMs);
    child.once('message', (m: ChildMessage) => {
      clearTimeout(timer);
      if (m.type === 'ready') resolve({ urls: m.urls, dataDir: m.dataDir });
      else if (m.type === 'failed') reject(new Error(m.message));
    });
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    void exited.then(({ code, signal, stderr }) => {
      clearTimeout(timer);
      reject(new Error(`the emulator process ended before it listened (${signal ?? `exit code ${code}`})${stderr ? `: ${stderr.trim()}` : ''}`));
    });
  });
}

/** `close`: the IPC channel is closed (the child stops itself), then the child is killed if it is still there after `graceMs`. */
function stopper(child: ReturnType<typeof fork>, exited: Promise<EmulatorProcessExit>): (graceMs?: number) => Promise<EmulatorProcessExit> {
  let closing: Promise<EmulatorProcessExit> | undefined;
  return (graceMs = 10_000) => {
    closing ??= (async () => {
      if (child.connected) child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const exit = await exited;
      clearTimeout(timer);
      return exit;
    })();
    return closing;
  };
}
