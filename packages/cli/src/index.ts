/** @pfc/cli: the `pfc` command, callable in-process (tests, other tools) with its own I/O. */
export { runCli } from './cli';
export { processIo, EXIT, UsageError, type CliIo } from './io';
