/**
 * A result download cut off by a dying instance: the file moves to another
 * instance of the fleet (a fleet move, its job there), instead of failing
 * after the fleet let go of it and waiting for a whole-file retry. Checked in
 * the output folder (bytes and pixels), in the instances' own output folders
 * (which instance corrected which file) and in the run's events.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FetchLike } from '@pfc/core';
import { startEmulator } from '@pfc/emulator';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { type BatchEvent, createNodeFetch, openBackend, planBatch, runBatch } from '../src/index';
import { solidJpegs, tempDir } from './helpers';

/**
 * Stands in for the network under the client: the first result download from
 * `origin` delivers half its bytes, says which (its image key), and once `closed` resolves (the
 * instance is dead) fails the way Node's fetch fails a body whose socket
 * closed mid-way (`TypeError: terminated`).
 */
function cutFirstDownload(base: FetchLike, origin: string, closed: Promise<void>): { fetch: FetchLike; cut: Promise<string> } {
  let cutKey!: (key: string) => void;
  const cut = new Promise<string>((r) => (cutKey = r));
  let done = false;
  const fetch: FetchLike = async (input, init) => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    const res = await base(input, init);
    if (done || url.origin !== origin || !url.pathname.startsWith('/output/')) return res;
    done = true;
    const bytes = new Uint8Array(await res.arrayBuffer());
    const body = new ReadableStream<Uint8Array>({
      async start(c) {
        c.enqueue(bytes.subarray(0, bytes.length >> 1));
        cutKey(decodeURIComponent(url.pathname.slice('/output/'.length)));
        await closed;
        c.error(new TypeError('terminated', { cause: new Error('other side closed') }));
      },
    });
    return new Response(body, { status: res.status, headers: res.headers });
  };
  return { fetch, cut };
}

describe('fleet: a download cut by a dying instance', () => {
  it('moves the file to another instance: complete output, corrected there, 0 lost, 0 duplicated, no whole-file retry', async () => {
    const root = tempDir();
    const outDirs = [0, 1, 2].map((i) => join(root, `instance-${i}`));
    for (const d of outDirs) mkdirSync(d);
    // Each instance's own /output shows (by content) which files it corrected.
    const emu = await startEmulator({
      engine: {}, bgr: false,
      container: { processingMs: 40, outputDir: outDirs[0]! },
      containerInstances: [{ processingMs: 40, outputDir: outDirs[1]! }, { processingMs: 40, outputDir: outDirs[2]! }],
    });
    try {
      const servers = emu.selfHosted.containers;
      const victim = servers[1]!;
      const names = await solidJpegs(join(root, 'in'), 12, { prefix: 'm' });
      let closedNow!: () => void;
      const closed = new Promise<void>((r) => (closedNow = r));
      const net = cutFirstDownload(createNodeFetch(), victim.url, closed);
      // The victim takes one file at a time: the cut file is the only one it holds when it dies.
      const opened = await openBackend({ containerUrl: servers.map((s) => s.url), instanceJobs: '2,1,2', healthIntervalMs: 50, fetch: net.fetch });
      const plan = await planBatch({ inputs: [join(root, 'in')], params: {}, backend: opened.id });
      const events: BatchEvent[] = [];
      const run = runBatch(plan, { backend: opened.backend, backendId: opened.id, concurrency: opened.defaultConcurrency, retryDelayMs: 10, onEvent: (e) => events.push(e) });
      const cutKey = await net.cut;
      await victim.close();
      closedNow();
      const summary = await run;

      expect([summary.corrected, summary.failed]).toEqual([12, 0]);
      // No whole-file retry: the fleet moved it.
      expect(events.filter((e) => e.type === 'retry')).toEqual([]);
      // The file whose download was cut: the one whose result names the victim's failure and the move.
      const movedNote = (e: BatchEvent) => e.type === 'corrected' && e.warnings.some((w) => w.includes(`instance ${victim.url} failed`) && w.includes(cutKey) && w.includes('moved to another instance'));
      const moved = events.filter(movedNote);
      expect(moved).toHaveLength(1);
      const cutFile = moved[0]!.type === 'corrected' ? moved[0]!.rel : '';

      // Every file once in the output folder, whole, 96×64 pixels, and byte for byte what exactly one instance wrote
      // (the cut file: the victim too, whose download was lost, and exactly one survivor).
      const outDir = join(root, 'in/corrected');
      expect(readdirSync(outDir).filter((f) => !f.startsWith('.')).sort()).toEqual(names);
      const written = outDirs.map((d) => readdirSync(d).map((f) => ({ f, bytes: readFileSync(join(d, f)) })));
      for (const name of names) {
        const local = readFileSync(join(outDir, name));
        const meta = await sharp(local).metadata();
        expect([meta.width, meta.height], name).toEqual([96, 64]);
        const where = written.map((files) => files.filter((w) => w.bytes.equals(local)).length);
        if (name === cutFile) {
          expect(where[1], name).toBe(1);
          expect(written[1]!.find((w) => w.bytes.equals(local))!.f).toBe(cutKey);
          expect(where[0]! + where[2]!, name).toBe(1);
        } else {
          expect(where[0]! + where[1]! + where[2]!, name).toBe(1);
        }
      }
      const status = opened.instances!();
      expect(status[1]).toMatchObject({ healthy: false });
      expect(status[1]!.failed).toBeGreaterThanOrEqual(1);
      // No file corrected twice on one instance, and the instances' corrections add up to the files plus the one moved.
      for (const s of servers) expect(new Set(s.corrections.map((r) => r.imageKey)).size).toBe(s.corrections.length);
      const corrected = servers.reduce((n, s) => n + s.corrections.filter((r) => r.status === 'corrected').length, 0);
      expect(corrected).toBe(12 + 1);
      await opened.close();
    } finally {
      await emu.close();
    }
  });
});
