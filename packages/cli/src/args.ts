/** Argument parsing on `node:util` parseArgs, with usage errors that name the flag. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './io';

type Options = NonNullable<ParseArgsConfig['options']>;
// Named so the package's declarations can spell the return type (TS4058 otherwise).
type Parsed<O extends Options> = ReturnType<typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: true }>>;

/** Flags whose value is a path: like a positional path, an empty one is refused. */
const PATH_FLAGS = ['out', 'report', 'container-input-dir', 'container-output-dir'];

/**
 * Parse `argv` strictly: an unknown flag or a missing value is a `UsageError`,
 * and so is an empty path. The shell passes an unset variable (`pfc correct
 * "$DIR" --in-place`) as an empty argument, which path resolution would take
 * for the current folder: refused rather than guessed.
 */
export function parse<O extends Options>(argv: string[], options: O, command: string): Parsed<O> {
  let parsed: Parsed<O>;
  try {
    parsed = parseArgs({ args: negativeValuesAttached(argv, (flag) => takesValue(flag, options)), options, strict: true, allowPositionals: true });
  } catch (err) {
    const msg = (err as Error).message.replace(/\. To specify a positional argument.*$/s, '');
    throw new UsageError(`${msg} (see: pfc ${command} --help)`);
  }
  refuseEmptyPaths(parsed, command);
  return parsed;
}

/** A negative number (`-1`, `-0.5`, `-.5`): never a pfc flag. */
const NEGATIVE_NUMBER = /^-\.?\d/;

/**
 * `argv` with a negative number that follows a flag taking a value attached to
 * it (`--job-timeout -1` → `--job-timeout=-1`, `-j -1` → `-j-1`). parseArgs
 * calls such a value ambiguous, since it starts with a dash; as no pfc flag
 * looks like a number, it is the flag's value, and the flag's own check then
 * says what range it takes. `takesValue` tells a whole flag (`--name`, `-x`) that takes a value.
 */
export function negativeValuesAttached(argv: string[], takesValue: (flag: string) => boolean): string[] {
  const attached: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    // After `--` every argument is a positional, as given.
    if (arg === '--') return [...attached, ...argv.slice(i)];
    const next = argv[i + 1];
    if (next !== undefined && NEGATIVE_NUMBER.test(next) && takesValue(arg)) {
      attached.push(arg.startsWith('--') ? `${arg}=${next}` : `${arg}${next}`);
      i++;
    } else {
      attached.push(arg);
    }
  }
  return attached;
}

/** Whether `arg` is a whole flag (`--name` or `-x`, no value attached) that takes a value. */
function takesValue(arg: string, options: Options): boolean {
  const name = arg.startsWith('--') ? arg.slice(2)
    : /^-[^-]$/.test(arg) ? Object.keys(options).find((key) => options[key]!.short === arg[1])
    : undefined;
  return name !== undefined && options[name]?.type === 'string';
}

function refuseEmptyPaths(parsed: { values: Record<string, unknown>; positionals: string[] }, command: string): void {
  const unset = ' (an unset shell variable?); nothing was done';
  if (parsed.positionals.includes('')) throw new UsageError(`an argument of pfc ${command} is empty${unset}`);
  const flag = PATH_FLAGS.find((name) => [parsed.values[name]].flat().includes(''));
  if (flag !== undefined) throw new UsageError(`--${flag} is empty${unset}`);
}

/** An integer flag within bounds, or undefined when absent. */
export function intFlag(name: string, raw: string | undefined, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isInteger(n) || n < min || n > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max} (got ${JSON.stringify(raw)})`);
  }
  return n;
}

/** A positive number of seconds (fractions allowed) up to `max`, or undefined when absent. */
export function secondsFlag(name: string, raw: string | undefined, max: number): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^\d*\.?\d+$/.test(raw.trim()) || !Number.isFinite(n) || n <= 0 || n > max) {
    throw new UsageError(`--${name} must be a number of seconds above 0 and at most ${max} (got ${JSON.stringify(raw)})`);
  }
  return n;
}
