/** What a command may touch of its process: streams, environment, working folder, signals. Tests and the bin pass their own. */
import type { Readable, Writable } from 'node:stream';

export interface CliIo {
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean; columns?: number };
  stdin: Readable & { isTTY?: boolean };
  env: Record<string, string | undefined>;
  cwd: string;
  /** Registers a handler for SIGINT/SIGTERM; returns a function that removes it. */
  onInterrupt(handler: (signal: string) => void): () => void;
}

/** The real process's I/O. */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    onInterrupt(handler) {
      process.on('SIGINT', handler);
      process.on('SIGTERM', handler);
      return () => {
        process.off('SIGINT', handler);
        process.off('SIGTERM', handler);
      };
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
  /** Interrupted (Ctrl-C or SIGTERM). */
  interrupted: 130,
} as const;
