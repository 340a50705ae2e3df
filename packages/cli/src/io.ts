/** What a command may touch of its process: streams, environment, working folder, signals. Tests and the bin pass their own. */
import type { Readable, Writable } from 'node:stream';

export interface CliIo {
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean; columns?: number };
  stdin: Readable & { isTTY?: boolean };
  env: Record<string, string | undefined>;
  cwd: string;
  /**
   * Registers a handler for the ways a run is asked to stop: SIGINT, SIGTERM,
   * SIGHUP (the terminal closed), and `EPIPE` (the reader of stdout or stderr
   * went away, e.g. `pfc … | head`). Returns a function that removes it.
   */
  onInterrupt(handler: (signal: string) => void): () => void;
}

/** Signals that stop a run gracefully (first time) and at once (second time). */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * The real process's I/O. Stop signals and a closed output pipe go to the
 * registered handlers; with none registered the process exits at once (which
 * runs its exit hooks, e.g. the embedded emulator's clean-up) instead of dying
 * with a stack trace or without cleaning up.
 */
export function processIo(): CliIo {
  const handlers = new Set<(signal: string) => void>();
  const deliver = (signal: string): void => {
    if (handlers.size === 0) process.exit(signal === 'EPIPE' ? EXIT.brokenPipe : EXIT.interrupted);
    for (const handler of [...handlers]) handler(signal);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, () => deliver(signal));
  let pipeClosed = false;
  // After EPIPE every later write fails too; only the first one asks the run to stop.
  const onStreamError = (): void => {
    if (pipeClosed) return;
    pipeClosed = true;
    deliver('EPIPE');
  };
  process.stdout.on('error', onStreamError);
  process.stderr.on('error', onStreamError);
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    onInterrupt(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
  };
}

/** A mistake on the command line: printed with a hint, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export const EXIT = {
  /** Every file corrected or up to date. */
  ok: 0,
  /** Some file failed. */
  failed: 1,
  /** Unknown flag, invalid parameter, missing path. */
  usage: 2,
  /** Interrupted (Ctrl-C, SIGTERM, SIGHUP). */
  interrupted: 130,
  /** The reader of the output went away (EPIPE) with nothing to stop gracefully: 128 + SIGPIPE, as a shell reports a command killed by it. */
  brokenPipe: 141,
} as const;
