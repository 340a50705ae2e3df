#!/usr/bin/env node
/**
 * The emulator for the client benchmarks, started like `pfc-emulator` but
 * without the imaging engine: jobs do geometry and encoding only, so a job's
 * time is `processingMs` (its few tens of ms of work included), and a benchmark of the client
 * (pipeline, polling, soak, crash) measures the client, not the engine's CPU
 * time on a 2-core machine. The engine has its own suite.
 *
 * Usage: node emulator-launcher.mjs '<JSON startEmulator options>'
 * Prints the ready line ({"web": …}) like the bin; stops on SIGTERM/SIGINT.
 */
import { availableParallelism } from 'node:os';
import sharp from 'sharp';
import { startEmulator } from '@pfc/emulator';

const options = JSON.parse(process.argv[2] ?? '{}');
if (options.verbose) options.log = (line) => process.stderr.write(`${line}\n`);
delete options.verbose;
sharp.concurrency(availableParallelism());
const emu = await startEmulator({ ...options, engine: {} });
let stopping = false;
const stop = () => {
  if (stopping) process.exit(1);
  stopping = true;
  emu.close().then(() => process.exit(0), () => process.exit(1));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
process.stdout.write(`${JSON.stringify(emu.urls)}\n`);
