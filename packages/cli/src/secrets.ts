/**
 * Where the Web API key comes from. A key on the command line (`--api-key`) is
 * readable by every user of the machine (`ps`, `/proc/<pid>/cmdline`) and ends
 * up in shell history, so it still works but draws a warning; the safe ways are
 * `PFC_API_KEY`, `--api-key-file FILE` and `--api-key-stdin` (or
 * `--api-key-file -`). The key itself is never printed, not even in errors.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { type CliIo, UsageError } from './io';
import { hasControls } from './terminal';

/** The key flags, for every command that talks to the Web API. */
export const API_KEY_FLAGS = {
  'api-key': { type: 'string' },
  'api-key-file': { type: 'string' },
  'api-key-stdin': { type: 'boolean' },
} as const;

export interface ApiKeyFlags {
  'api-key'?: string | undefined;
  'api-key-file'?: string | undefined;
  'api-key-stdin'?: boolean | undefined;
}

/** The warning printed (to stderr) when the key is given as `--api-key`. */
export const API_KEY_ARGV_WARNING =
  'pfc: warning: --api-key is visible to other users of this machine (ps) and kept in shell history; use PFC_API_KEY, --api-key-file FILE or --api-key-stdin instead';

/** Longest key file read (a key is a few dozen bytes; anything bigger is the wrong file). */
const MAX_KEY_BYTES = 4096;

/**
 * The API key from the flags, else `PFC_API_KEY`; undefined when none is set.
 * @throws UsageError when more than one source is given, or a file, stdin or `PFC_API_KEY` holds no key or more than one line.
 */
export async function readApiKey(flags: ApiKeyFlags, io: CliIo): Promise<string | undefined> {
  const fromFile = flags['api-key-file'];
  const fromStdin = flags['api-key-stdin'] === true || fromFile === '-';
  const given = [flags['api-key'] !== undefined && '--api-key', fromFile !== undefined && '--api-key-file', flags['api-key-stdin'] && '--api-key-stdin'].filter(Boolean);
  if (given.length > 1) throw new UsageError(`${given.join(' and ')} cannot be combined: give the API key one way`);
  if (flags['api-key'] !== undefined) {
    io.stderr.write(`${API_KEY_ARGV_WARNING}\n`);
    return nonEmpty(flags['api-key'], '--api-key');
  }
  if (fromStdin) return nonEmpty(await readStdin(io.stdin), 'the standard input (--api-key-stdin)');
  if (fromFile !== undefined) return nonEmpty(await readKeyFile(resolve(io.cwd, fromFile), fromFile), `--api-key-file ${fromFile}`);
  // Checked as a key file is: a variable set from a file of two lines would otherwise be sent, refused as a
  // header, and retried as if the service could not be reached.
  const fromEnv = io.env.PFC_API_KEY;
  return fromEnv ? nonEmpty(fromEnv, 'PFC_API_KEY') : undefined;
}

async function readKeyFile(path: string, shownPath: string): Promise<string> {
  try {
    const bytes = await readFile(path);
    if (bytes.length > MAX_KEY_BYTES) throw new UsageError(`--api-key-file ${shownPath} is ${bytes.length} bytes: not an API key file (a key is one short line)`);
    return bytes.toString('utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new UsageError(`--api-key-file ${shownPath} cannot be read (${code})`);
  }
}

/** Everything on stdin, which must not be a terminal: typed keys would be echoed on the screen. */
async function readStdin(stdin: Readable & { isTTY?: boolean }): Promise<string> {
  if (stdin.isTTY) throw new UsageError('--api-key-stdin reads the key from a pipe or file (e.g. pfc … --api-key-stdin < key.txt), not from the terminal, where it would be shown');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buf.length;
    if (size > MAX_KEY_BYTES) throw new UsageError(`--api-key-stdin: more than ${MAX_KEY_BYTES} bytes on the standard input: not an API key`);
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The key without surrounding white space (a file's final newline); an empty key is a usage error naming where it came from. */
function nonEmpty(raw: string, source: string): string {
  const key = raw.trim();
  if (!key) throw new UsageError(`${source} holds no API key (it is empty)`);
  if (/\s/.test(key) || hasControls(key)) throw new UsageError(`${source} holds more than one line or control characters: an API key is one line`);
  return key;
}
