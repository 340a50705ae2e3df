/**
 * The emulator process that `startEmulatorProcess` (process.ts) forks: starts
 * the emulator with the options of the parent's first message, tells the
 * parent its addresses over the IPC channel, and stops when that channel
 * closes (the parent's `close()`, or the parent's end) or on SIGTERM.
 */
import type { ChildMessage, StartMessage } from './process';
import { startEmulator, type EmulatorHandle } from './server';

function send(message: ChildMessage): void {
  process.send?.(message);
}

async function main(): Promise<void> {
  if (!process.send) {
    process.stderr.write('the emulator child process needs an IPC channel: start it with startEmulatorProcess\n');
    process.exit(2);
  }
  // Ctrl-C, or a terminal closing, reaches the whole process group: the parent decides (a first Ctrl-C
  // cancels its run, which still needs this emulator to end its jobs) and stops this one through the channel.
  for (const signal of ['SIGINT', 'SIGHUP'] as const) process.on(signal, () => undefined);
  const options = await startOptions();
  if (!options) process.exit(0); // the parent went before saying how
  let emulator: EmulatorHandle;
  try {
    emulator = await startEmulator(options);
  } catch (err) {
    send({ type: 'failed', message: `the emulator could not start: ${(err as Error).message}` });
    process.exit(1);
  }
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    emulator.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('disconnect', stop);
  process.once('SIGTERM', stop);
  // The parent may have gone while the servers started.
  if (!process.connected) return stop();
  send({ type: 'ready', urls: emulator.urls, dataDir: emulator.dataDir });
  reportFirstFinishedJob(emulator);
}

/**
 * Tells the parent once a job has finished (completed, failed or rejected): an emulator that ends on its own
 * after that was working, not crashing on whatever it is given (see `EmulatorProcess.finishedAJob`).
 */
function reportFirstFinishedJob(emulator: EmulatorHandle): void {
  const timer = setInterval(() => {
    const { COMPLETED, FAILED, REJECTED } = emulator.stats().jobs.byState;
    if (COMPLETED + FAILED + REJECTED === 0) return;
    clearInterval(timer);
    send({ type: 'finished-a-job' });
  }, 200);
  timer.unref();
}

/** The options of the parent's `start` message; undefined if the channel closes first. */
function startOptions(): Promise<StartMessage['options'] | undefined> {
  return new Promise((resolve) => {
    process.once('message', (m: StartMessage) => resolve(m.options));
    process.once('disconnect', () => resolve(undefined));
  });
}

void main();
