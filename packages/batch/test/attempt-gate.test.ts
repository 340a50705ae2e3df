/**
 * The gate of attempts (src/attempt-gate.ts): side by side as a rule; one
 * after a lost job alone, once nothing is in flight, without holding the
 * others back while it waits.
 */
import { UserAbortError } from '@pfc/core';
import { describe, expect, it } from 'vitest';
import { AttemptGate } from '../src/attempt-gate';

/** Whether a promise has settled, after the pending callbacks ran. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true), () => (done = true));
  await new Promise((r) => setImmediate(r));
  return done;
}

describe('AttemptGate', () => {
  it('lets attempts run side by side', async () => {
    const gate = new AttemptGate();
    const leaves = await Promise.all([gate.enter(false), gate.enter(false), gate.enter(false)]);
    expect(gate.inFlight).toBe(3);
    for (const leave of leaves) leave();
    expect(gate.inFlight).toBe(0);
  });

  it('runs an attempt alone once none is in flight, without holding new ones back while it waits; none starts while it runs', async () => {
    const gate = new AttemptGate();
    const first = await gate.enter(false);
    const alone = gate.enter(true);
    expect(await settled(alone)).toBe(false);
    // Not held back while the lone one waits (holding them could deadlock with the job slots' order).
    const second = await gate.enter(false);
    first();
    expect(await settled(alone)).toBe(false);
    second();
    expect(await settled(alone)).toBe(true);
    expect(gate.inFlight).toBe(1);
    // While it runs, the others wait, then go together.
    const [a, b] = [gate.enter(false), gate.enter(false)];
    expect(await settled(a)).toBe(false);
    const leaveAlone = await alone;
    leaveAlone();
    leaveAlone(); // idempotent
    (await a)();
    (await b)();
    expect(gate.inFlight).toBe(0);
  });

  it('runs waiting lone attempts one at a time', async () => {
    const gate = new AttemptGate();
    const busy = await gate.enter(false);
    const [x, y] = [gate.enter(true), gate.enter(true)];
    busy();
    expect(await settled(x)).toBe(true);
    expect(await settled(y)).toBe(false);
    (await x)();
    expect(await settled(y)).toBe(true);
    (await y)();
    expect(gate.inFlight).toBe(0);
  });

  it('a cancelled wait rejects and leaves the gate as it was', async () => {
    const gate = new AttemptGate();
    const busy = await gate.enter(false);
    const cancel = new AbortController();
    const waiting = gate.enter(true, cancel.signal);
    cancel.abort();
    await expect(waiting).rejects.toBeInstanceOf(UserAbortError);
    busy();
    expect(gate.inFlight).toBe(0);
    (await gate.enter(true))();
    await expect(gate.enter(false, cancel.signal)).rejects.toBeInstanceOf(UserAbortError);
  });

  it('is quiet (the run takes new files) only while no attempt waits or runs alone', async () => {
    const gate = new AttemptGate();
    await gate.quiet();
    const busy = await gate.enter(false);
    const alone = gate.enter(true);
    const quiet = gate.quiet();
    expect(await settled(quiet)).toBe(false);
    busy();
    const leaveAlone = await alone;
    expect(await settled(quiet)).toBe(false);
    leaveAlone();
    expect(await settled(quiet)).toBe(true);
    // A cancelled lone wait, or the run's cancel, ends the quiet wait too.
    const busyAgain = await gate.enter(false);
    const cancel = new AbortController();
    const waiting = gate.enter(true, cancel.signal).catch(() => undefined);
    const quietAgain = gate.quiet();
    cancel.abort();
    await waiting;
    expect(await settled(quietAgain)).toBe(true);
    const stop = new AbortController();
    const lone = gate.enter(true);
    const quietUntilStop = gate.quiet(stop.signal);
    stop.abort();
    expect(await settled(quietUntilStop)).toBe(true);
    busyAgain();
    (await lone)();
  });
});
