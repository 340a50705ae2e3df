/**
 * The ffmpeg binary and a runner for it. The binary comes from the npm
 * package `@ffmpeg-installer/linux-x64` (a static build shipped inside the
 * package, so nothing downloads at install or run time); `PFC_FFMPEG` names
 * another binary (other platforms, or a newer build).
 */
import { spawn } from 'node:child_process';
import { accessSync, chmodSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { EngineError } from '../errors';

let cached: string | undefined;

/**
 * Path of the ffmpeg binary: `PFC_FFMPEG` when set, else the one in
 * `@ffmpeg-installer/linux-x64` (made executable if the package manager lost
 * the mode bit, as npm does when install scripts are not run).
 *
 * @throws EngineError `processing` when no binary is available.
 */
export function ffmpegPath(): string {
  const fromEnv = process.env.PFC_FFMPEG;
  if (fromEnv) return fromEnv;
  if (cached) return cached;
  let path: string;
  try {
    const require = createRequire(import.meta.url);
    path = join(dirname(require.resolve('@ffmpeg-installer/linux-x64/package.json')), 'ffmpeg');
  } catch {
    throw new EngineError(
      'processing',
      `video correction needs ffmpeg: @ffmpeg-installer/linux-x64 is not installed (it exists for Linux x64 only; this is ${process.platform}-${process.arch}); set PFC_FFMPEG to an ffmpeg binary`,
    );
  }
  try {
    accessSync(path, constants.X_OK);
  } catch {
    chmodSync(path, 0o755);
  }
  cached = path;
  return path;
}

/** Output of one ffmpeg run. */
export interface FfmpegOutput {
  stdout: Buffer;
  stderr: string;
  code: number;
}

/**
 * Run ffmpeg with `args` (no shell). Resolves with the exit code whatever it
 * is (probing with `-i` alone exits 1 by design); rejects only when the
 * process cannot start or `signal` aborts (the process is killed).
 */
export function runFfmpeg(args: readonly string[], signal?: AbortSignal): Promise<FfmpegOutput> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason ?? new Error('aborted'));
      return;
    }
    const child = spawn(ffmpegPath(), ['-hide_banner', '-nostdin', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => {
      // Keep the tail only: progress lines of a long encode would grow without bound.
      err = (err + b.toString('utf8')).slice(-64_000);
    });
    const onAbort = (): void => {
      child.kill('SIGKILL');
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (e) => {
      signal?.removeEventListener('abort', onAbort);
      reject(new EngineError('processing', `ffmpeg could not be started: ${e.message}`));
    });
    child.on('close', (code) => {
      signal?.removeEventListener('abort', onAbort);
      if (signal?.aborted) reject(signal.reason ?? new Error('aborted'));
      else resolve({ stdout: Buffer.concat(out), stderr: err, code: code ?? -1 });
    });
  });
}

/** The last meaningful lines of ffmpeg's stderr, for an error message. */
export function ffmpegError(stderr: string): string {
  const lines = stderr
    .split(/\r?\n|\r/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('frame='));
  return lines.slice(-3).join(' / ') || 'no output';
}
