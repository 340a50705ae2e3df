#!/usr/bin/env node
/** The `pfc` bin. */
import { processIo } from './io';
import { runCli } from './cli';

process.exitCode = await runCli(process.argv.slice(2), processIo());
