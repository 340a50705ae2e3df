/**
 * `pfc emulator [options]`: runs the emulator's own bin (`pfc-emulator`) with
 * the same arguments, so both are one server with one set of flags.
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { negativeValuesAttached } from '../args';
import type { CliIo } from '../io';

/**
 * A long flag without its value attached (`--web-port`). The emulator takes no
 * positionals, so a negative number after one can only be its value: attached,
 * the emulator's own check names the flag's range (or says it takes no value)
 * instead of parseArgs calling the value ambiguous.
 */
const wholeLongFlag = (arg: string): boolean => arg.startsWith('--') && !arg.includes('=');

export async function emulatorCommand(argv: string[], io: CliIo): Promise<number> {
  const bin = join(dirname(fileURLToPath(import.meta.resolve('@pfc/emulator'))), 'bin.js');
  const child = spawn(process.execPath, [bin, ...negativeValuesAttached(argv, wholeLongFlag)], { stdio: 'inherit', env: io.env });
  // Passed on, so `kill <pfc pid>` stops the server too (its close is idempotent).
  const off = io.onInterrupt((signal) => child.kill(signal === 'EPIPE' ? 'SIGTERM' : (signal as NodeJS.Signals)));
  try {
    return await new Promise<number>((resolveExit, reject) => {
      child.on('error', reject);
      child.on('exit', (code, signal) => resolveExit(code ?? (signal ? 128 + (signal === 'SIGINT' ? 2 : 15) : 1)));
    });
  } finally {
    off();
  }
}
