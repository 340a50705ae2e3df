/** The `pfc` command: dispatch to a subcommand and turn every failure into a message and an exit code. */
import { APIError, ConnectionError, JobFailedError, ParameterError, PfcError } from '@pfc/core';
import pkg from '../package.json' with { type: 'json' };
import { correctCommand } from './commands/correct';
import { emulatorCommand } from './commands/emulator';
import { presetsCommand } from './commands/presets';
import { restoreCommand } from './commands/restore';
import { statusCommand } from './commands/status';
import { CORRECT_HELP, MAIN_HELP, PRESETS_HELP, RESTORE_HELP, STATUS_HELP } from './help';
import { type CliIo, EXIT, UsageError } from './io';
import { escapeControls } from './terminal';

const COMMANDS: Record<string, (argv: string[], io: CliIo) => Promise<number>> = {
  correct: correctCommand,
  presets: presetsCommand,
  restore: restoreCommand,
  status: statusCommand,
  emulator: emulatorCommand,
};

const HELPS: Record<string, string> = { correct: CORRECT_HELP, presets: PRESETS_HELP, restore: RESTORE_HELP, status: STATUS_HELP };

/** Run `pfc` with `argv` (without the node and script paths). Resolves to the exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined || command === '-h' || command === '--help') {
      io.stdout.write(MAIN_HELP);
      return command === undefined ? EXIT.usage : EXIT.ok;
    }
    if (command === '-v' || command === '--version') {
      io.stdout.write(`${pkg.version}\n`);
      return EXIT.ok;
    }
    if (command === 'help') {
      const topic = rest[0];
      if (topic === 'emulator') return await emulatorCommand(['--help'], io);
      io.stdout.write(topic && HELPS[topic] ? HELPS[topic] : MAIN_HELP);
      return topic && !HELPS[topic] ? EXIT.usage : EXIT.ok;
    }
    const run = COMMANDS[command];
    if (!run) throw new UsageError(`unknown command ${JSON.stringify(command)} (commands: ${Object.keys(COMMANDS).join(', ')}; see: pfc --help)`);
    return await run(rest, io);
  } catch (err) {
    io.stderr.write(`pfc: ${escapeControls(describe(err), { keepNewlines: true })}\n`);
    return err instanceof UsageError || err instanceof ParameterError ? EXIT.usage : EXIT.failed;
  }
}

/** One message per failure; core's errors never carry the API key. */
function describe(err: unknown): string {
  if (err instanceof UsageError || err instanceof ParameterError || err instanceof JobFailedError) return err.message;
  if (err instanceof APIError && (err.status === 401 || err.status === 403)) return `${err.message} (check the API key: PFC_API_KEY or --api-key)`;
  if (err instanceof ConnectionError) return `${err.message} (check --base-url and your network)`;
  if (err instanceof PfcError) return err.message;
  if (err instanceof Error) return err.stack ?? err.message;
  return String(err);
}
