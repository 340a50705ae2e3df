import { describe, expect, it } from 'vitest';
import { AdaptiveLimit, ConnectionError, Fleet, FleetUnavailableError, InternalServerError, ParameterError } from '../src/index';
import { onInstanceWhole } from '../src/fleet/fleet';

/** A fake instance: counts calls in flight (its own peak) and can be made to fail or go unhealthy. */
function instance(name: string) {
  const me = { name, healthy: true, failing: false, inFlight: 0, peak: 0, done: [] as number[] };
  const client = {
    async work(n: number, hold: Promise<void>): Promise<string> {
      me.inFlight++;
      me.peak = Math.max(me.peak, me.inFlight);
      try {
        await hold;
        if (me.failing) throw new ConnectionError(`GET ${name}/pfc`);
        me.done.push(n);
        return `${name}:${n}`;
      } finally {
        me.inFlight--;
      }
    },
  };
  return { me, member: { name, client, concurrency: 2, health: async () => me.healthy } };
}

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(cond()).toBe(true);
}

describe('Fleet', () => {
  it('sends work to the instance with the least outstanding work, never above its concurrency', async () => {
    const a = instance('a');
    const b = instance('b');
    const fleet = new Fleet([a.member, b.member], { healthIntervalMs: 10 });
    let open!: () => void;
    const hold = new Promise<void>((r) => (open = r));
    const runs = Array.from({ length: 6 }, (_, n) => fleet.use((c) => c.work(n, hold)));
    await until(() => a.me.inFlight + b.me.inFlight === 4);
    expect([a.me.inFlight, b.me.inFlight]).toEqual([2, 2]);
    open();
    const out = await Promise.all(runs);
    expect(a.me.peak).toBe(2);
    expect(b.me.peak).toBe(2);
    expect(out.map((o) => o.value.split(':')[1]).sort()).toEqual(['0', '1', '2', '3', '4', '5']);
    expect(a.me.done.length + b.me.done.length).toBe(6);
    fleet.close();
  });

  it('with slots free on instances of different speeds, sends the call to the one that has been returning calls sooner', async () => {
    const a = instance('slow');
    const b = instance('fast');
    const fleet = new Fleet([a.member, b.member]);
    const pause = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
    const hold = (c: unknown) => (c === a.member.client ? pause(200) : pause(2));
    // Both learn their speed: two calls each (the least outstanding work spreads them).
    await Promise.all([0, 1, 2, 3].map((n) => fleet.use((c) => c.work(n, hold(c)))));
    expect([a.me.done.length, b.me.done.length]).toEqual([2, 2]);
    // One call at a time now: both are free each time, and the fast one gets every call.
    for (let n = 4; n < 9; n++) await fleet.use((c) => c.work(n, hold(c)));
    expect(b.me.done.slice(2)).toEqual([4, 5, 6, 7, 8]);
    expect(a.me.done).toHaveLength(2);
    fleet.close();
  });

  it('moves a call off a failed instance to another, once, and says which failed', async () => {
    const a = instance('a');
    const b = instance('b');
    a.me.failing = true;
    const events: string[] = [];
    const fleet = new Fleet([a.member, b.member], { healthIntervalMs: 10, onEvent: (e) => events.push(e.type === 'moved' ? `moved from ${e.from}` : `${e.type} ${e.instance}`) });
    const results = await Promise.all([0, 1, 2, 3].map((n) => fleet.use((c) => c.work(n, Promise.resolve()))));
    expect(results.every((r) => r.instance === 'b')).toBe(true);
    expect(b.me.done.sort()).toEqual([0, 1, 2, 3]);
    expect(a.me.done).toEqual([]);
    expect(results.some((r) => r.notes.some((n) => n.includes('instance a failed')))).toBe(true);
    expect(events).toContain('down a');
    expect(fleet.status().find((s) => s.name === 'a')).toMatchObject({ healthy: false, completed: 0 });
    fleet.close();
  });

  it('reads a result on its instance up to a bound, and streams a larger one on without holding it all', async () => {
    const chunk = new Uint8Array(1000).fill(7);
    let pulled = 0;
    const body = (chunks: number) => new ReadableStream<Uint8Array>({
      pull(c) {
        if (pulled >= chunks) return c.close();
        pulled++;
        c.enqueue(chunk);
      },
    }, { highWaterMark: 0 });
    const fleet = new Fleet([instance('a').member], { healthIntervalMs: 10 });
    const small = await onInstanceWhole(fleet, async () => ({ body: body(3) }), undefined, 10_000);
    expect(pulled).toBe(3);
    expect((await new Response(small.value.body).arrayBuffer()).byteLength).toBe(3000);
    pulled = 0;
    const large = await onInstanceWhole(fleet, async () => ({ body: body(50) }), undefined, 10_000);
    // Read ahead: the bound and one chunk over it, not the whole 50 KB.
    expect(pulled).toBe(11);
    const bytes = new Uint8Array(await new Response(large.value.body).arrayBuffer());
    expect(bytes.byteLength).toBe(50_000);
    expect(bytes.every((b) => b === 7)).toBe(true);
    fleet.close();
  });

  it('does not move a call for its own error (a 4xx or a parameter error)', async () => {
    const a = instance('a');
    const b = instance('b');
    const fleet = new Fleet([a.member, b.member]);
    let calls = 0;
    await expect(fleet.use(async () => {
      calls++;
      throw new ParameterError([{ param: 'preset', message: 'bad preset' }]);
    })).rejects.toBeInstanceOf(ParameterError);
    expect(calls).toBe(1);
    fleet.close();
  });

  it('does not use an instance that fails its first health check, and uses it once it recovers', async () => {
    const a = instance('a');
    const b = instance('b');
    a.me.healthy = false;
    const fleet = new Fleet([a.member, b.member], { healthIntervalMs: 10 });
    let open!: () => void;
    const hold = new Promise<void>((r) => (open = r));
    const first = Array.from({ length: 4 }, (_, n) => fleet.use((c) => c.work(n, hold)));
    await until(() => b.me.inFlight === 2);
    expect(a.me.inFlight).toBe(0);
    a.me.healthy = true; // recovers: the checks while work waits find it
    await until(() => a.me.inFlight === 2);
    open();
    await Promise.all(first);
    expect(a.me.done.length).toBe(2);
    fleet.close();
  });

  it('starts on the first instance that answers its health check; one whose check hangs delays nothing and joins when it answers', async () => {
    const a = instance('a');
    const b = instance('b');
    let answer!: (ok: boolean) => void;
    const hanging = new Promise<boolean>((r) => (answer = r));
    const fleet = new Fleet([{ ...a.member, health: () => hanging }, b.member], { healthIntervalMs: 60_000 });
    const first = await Promise.all([0, 1].map((n) => fleet.use((c) => c.work(n, Promise.resolve()))));
    expect(first.map((r) => r.instance)).toEqual(['b', 'b']);
    expect(fleet.status()[0]!.healthy).toBeUndefined();
    answer(true);
    await until(() => fleet.status()[0]!.healthy === true);
    const next = await Promise.all([2, 3, 4, 5].map((n) => fleet.use((c) => c.work(n, Promise.resolve()))));
    expect(next.some((r) => r.instance === 'a')).toBe(true);
    fleet.close();
  });

  it('fails with FleetUnavailableError (a connection error) when every instance is down', async () => {
    const a = instance('a');
    const b = instance('b');
    a.me.healthy = false;
    b.me.healthy = false;
    const fleet = new Fleet([a.member, b.member]);
    await expect(fleet.use((c) => c.work(0, Promise.resolve()))).rejects.toBeInstanceOf(FleetUnavailableError);
    expect(a.me.done.length + b.me.done.length).toBe(0);
    fleet.close();
  });

  it('treats a 5xx as the instance failing', async () => {
    const a = instance('a');
    const b = instance('b');
    const fleet = new Fleet([a.member, b.member]);
    const seen: string[] = [];
    const r = await fleet.use(async (c) => {
      const who = c === a.member.client ? 'a' : 'b';
      seen.push(who);
      if (seen.length === 1) throw new InternalServerError(500, undefined, undefined, 'GET /pfc/x');
      return who;
    });
    expect(seen).toHaveLength(2);
    expect(seen[0]).not.toBe(seen[1]);
    expect(r.value).toBe(seen[1]);
    fleet.close();
  });
});

describe('AdaptiveLimit', () => {
  it('halves on a 429, once per overload, and climbs by one per round of jobs done', () => {
    let now = 0;
    const limit = new AdaptiveLimit({ max: 8, holdMs: 100, now: () => now });
    limit.congested();
    limit.congested(); // same overload
    expect(limit.current).toBe(4);
    now = 150;
    limit.congested();
    expect(limit.current).toBe(2);
    now = 300;
    limit.finished();
    expect(limit.current).toBe(2);
    limit.finished();
    expect(limit.current).toBe(3);
    for (let i = 0; i < 100; i++) limit.finished();
    expect(limit.current).toBe(8);
    expect(limit.changes.map((c) => c.limit)).toEqual([4, 2, 3, 4, 5, 6, 7, 8]);
  });
});
