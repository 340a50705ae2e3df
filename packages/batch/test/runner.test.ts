import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AuthenticationError, ConnectionError, ParameterError, type CorrectOptions, type FileInput, type PfcParams } from '@pfc/core';
import { describe, expect, it, vi } from 'vitest';
import { type BatchEvent, planBatch, runBatch, type RunOptions } from '../src/index';
import { hashFile } from '../src/hash';
import { Manifest } from '../src/manifest';
import { CORRECTED_MARK, FakeBackend, faults, jpegBytes, listAll, pngBytes, tempDir, writeTree } from './helpers';

// Counted, to show which files are read a second time just to be hashed.
vi.mock('../src/hash', async (importOriginal) => {
  const orig = await importOriginal<typeof import('../src/hash')>();
  return { ...orig, hashFile: vi.fn(orig.hashFile) };
});

function photos(n = 4): string {
  const root = tempDir();
  const files: Record<string, Buffer> = {};
  for (let i = 0; i < n; i++) files[`${i % 2 ? 'sub/' : ''}p${i}.jpg`] = jpegBytes(200 + i, 100, { filler: `photo ${i}` });
  writeTree(root, files);
  return root;
}

async function run(root: string, options: Partial<RunOptions> & { backend: FakeBackend }, planExtra: Parameters<typeof planBatch>[0] extends infer P ? Partial<P> : never = {}) {
  const events: BatchEvent[] = [];
  const plan = await planBatch({ inputs: [root], params: options.params ?? {}, ...planExtra });
  const summary = await runBatch(plan, { retryDelayMs: 1, ...options, onEvent: (e) => events.push(e) });
  return { summary, events, plan };
}

describe('runBatch', () => {
  it('corrects every file into the mirrored tree and leaves originals byte-identical', async () => {
    const root = photos();
    const before = Object.fromEntries(listAll(root).map((f) => [f, readFileSync(join(root, f))]));
    const backend = new FakeBackend();
    const { summary } = await run(root, { backend });
    expect(summary).toMatchObject({ corrected: 4, failed: 0, upToDate: 0, cancelled: 0, interrupted: false });
    for (const [rel, bytes] of Object.entries(before)) {
      expect(readFileSync(join(root, rel))).toEqual(bytes);
      expect(readFileSync(join(root, 'corrected', rel))).toEqual(Buffer.concat([bytes, CORRECTED_MARK]));
    }
    expect(summary.bytesOut).toBe(summary.bytesIn + 4 * CORRECTED_MARK.length);
    expect(backend.calls.map((c) => c.options.contentType)).toEqual(['image/jpeg', 'image/jpeg', 'image/jpeg', 'image/jpeg']);
  });

  it('skips what is done, redoes a changed input, and redoes everything when parameters change', async () => {
    const root = photos();
    await run(root, { backend: new FakeBackend() });
    const second = new FakeBackend();
    const r2 = await run(root, { backend: second });
    expect(r2.summary).toMatchObject({ corrected: 0, upToDate: 4 });
    expect(second.calls).toHaveLength(0);

    writeFileSync(join(root, 'p0.jpg'), jpegBytes(300, 300, { filler: 'edited' }));
    const third = new FakeBackend();
    const r3 = await run(root, { backend: third });
    expect(r3.summary).toMatchObject({ corrected: 1, upToDate: 3 });
    expect(r3.events.find((e) => e.type === 'start')).toMatchObject({ rel: 'p0.jpg', reason: 'input-changed' });

    const fourth = new FakeBackend();
    const r4 = await run(root, { backend: fourth, params: { outputQuality: 70 } });
    expect(r4.summary.corrected).toBe(4);
    expect(fourth.calls.every((c) => c.params.outputQuality === 70)).toBe(true);
    expect((await run(root, { backend: new FakeBackend(), params: { outputQuality: 70 }, force: true })).summary.corrected).toBe(4);
  });

  it('never runs more jobs at once than asked', async () => {
    const root = photos(8);
    const backend = new FakeBackend({ delayMs: 20 });
    await run(root, { backend, concurrency: 3 });
    expect(backend.calls).toHaveLength(8);
    expect(backend.maxInFlight).toBe(3);
  });

  it('with a backend that takes job slots: that many jobs at once, the next files uploaded ahead (bounded)', async () => {
    const root = photos(12);
    const backend = new FakeBackend({ delayMs: 40, jobSlots: true });
    const { summary } = await run(root, { backend, concurrency: 3 });
    expect(summary).toMatchObject({ corrected: 12, failed: 0 });
    expect(backend.maxJobs).toBe(3);
    // Files wait uploaded for a slot beside the jobs, at most as many again.
    expect(backend.maxInFlight).toBeGreaterThan(3);
    expect(backend.maxInFlight).toBeLessThanOrEqual(6);
  });

  it('with job slots: jobs start in plan order even when a later upload finishes first', async () => {
    const root = photos(6);
    // p0 (the first in the plan) uploads slowly; the others at once.
    const backend = new FakeBackend({ delayMs: 10, jobSlots: true, uploadMs: (name) => (name === 'p0.jpg' ? 150 : 0) });
    const { summary, plan } = await run(root, { backend, concurrency: 2 });
    expect(summary.corrected).toBe(6);
    expect(backend.started).toEqual(plan.files.map((f) => f.rel.split('/').pop()));
  });

  it('with job slots: a failed job gives its slot back, and cancelling ends the waits for a slot', async () => {
    const root = photos(8);
    const failing = new FakeBackend({ jobSlots: true, fault: (name) => { if (name.startsWith('p')) throw faults.jobFailed(); } });
    const r1 = await run(root, { backend: failing, concurrency: 1 });
    expect(r1.summary).toMatchObject({ failed: 8 });
    expect(failing.jobs).toBe(0);

    const ctrl = new AbortController();
    const slow = new FakeBackend({ delayMs: 60_000, jobSlots: true, onCall: () => slow.calls.length === 4 && ctrl.abort() });
    const r2 = await run(root, { backend: slow, concurrency: 2, signal: ctrl.signal });
    expect(r2.summary).toMatchObject({ corrected: 0, failed: 0, cancelled: 8, interrupted: true });
    expect(slow.maxJobs).toBeLessThanOrEqual(2);
    expect(existsSync(join(root, 'corrected')) ? listAll(join(root, 'corrected')).filter((f) => !f.startsWith('.pfc-manifest')) : []).toEqual([]);
  });

  it('refuses invalid parameters before any upload', async () => {
    const root = photos();
    const backend = new FakeBackend();
    const err = await run(root, { backend, params: { width: 5 } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ParameterError);
    expect((err as ParameterError).message).toMatch(/width must be an integer from 32 to 10000/);
    expect(backend.calls).toHaveLength(0);
  });

  it('retries retryable failures per file and reports the others with the service reason', async () => {
    const root = photos();
    const backend = new FakeBackend({
      fault: (name, n) => {
        if (name === 'p0.jpg' && n <= 2) throw faults.serverError();
        if (name === 'p1.jpg') throw faults.jobFailed();
      },
    });
    const { summary, events } = await run(root, { backend });
    expect(summary).toMatchObject({ corrected: 3, failed: 1 });
    expect(events.filter((e) => e.type === 'retry').map((e) => (e as { rel: string }).rel)).toEqual(['p0.jpg', 'p0.jpg']);
    const failed = summary.results.find((r) => r.status === 'failed');
    expect(failed).toMatchObject({ rel: 'sub/p1.jpg', errorName: 'JobFailedError', jobId: 'job-1' });
    expect(failed?.error).toMatch(/FAILED: could not decode the image/);
    expect(existsSync(join(root, 'corrected/sub/p1.jpg'))).toBe(false);
    // The failed file is retried on the next run; the rest are up to date.
    const again = await run(root, { backend: new FakeBackend() });
    expect(again.summary).toMatchObject({ corrected: 1, upToDate: 3 });
  });

  it('stops the run when the credentials are refused, or the service cannot be reached', async () => {
    const root = photos(8);
    const refused = new FakeBackend({ fault: () => { throw new AuthenticationError(401, { error: 'bad key' }, undefined, 'GET /upload'); } });
    const r1 = await run(root, { backend: refused, concurrency: 1 });
    expect(r1.summary).toMatchObject({ failed: 1, cancelled: 7, interrupted: false });
    expect(r1.summary.stoppedBecause).toMatch(/refused the credentials: GET \/upload answered 401: bad key/);
    expect(refused.calls).toHaveLength(1);

    const down = new FakeBackend({ fault: () => { throw new ConnectionError('GET /upload'); } });
    const r2 = await run(root, { backend: down, concurrency: 1, attempts: 1 });
    expect(r2.summary).toMatchObject({ failed: 3, cancelled: 5 });
    expect(r2.summary.stoppedBecause).toMatch(/3 files in a row could not reach the service/);
  });

  it('refuses a result that is not an image, leaving nothing behind', async () => {
    const root = photos(1);
    const { summary } = await run(root, { backend: new FakeBackend({ body: () => new TextEncoder().encode('<html>error</html>') }) });
    expect(summary.results[0]).toMatchObject({ status: 'failed', errorName: 'OutputCheckError' });
    expect(summary.results[0]?.error).toMatch(/not an image \(starts "<html>error<\/htm"\)/);
    // Not even the output folder: the run made it, and it got no file; the summary names none.
    expect(existsSync(join(root, 'corrected'))).toBe(false);
    expect(summary.outputRoots).toEqual([]);
  });

  it('cancels: no new file starts, work in flight is aborted, no partial file is left', async () => {
    const root = photos(6);
    const ctrl = new AbortController();
    const backend = new FakeBackend({ delayMs: 60_000, onCall: () => backend.calls.length === 2 && ctrl.abort() });
    const { summary, events } = await run(root, { backend, concurrency: 2, signal: ctrl.signal });
    expect(summary).toMatchObject({ corrected: 0, cancelled: 6, interrupted: true });
    expect(backend.calls).toHaveLength(2);
    expect(backend.aborted).toBe(2);
    expect(events.filter((e) => e.type === 'cancelled')).toHaveLength(2);
    expect(existsSync(join(root, 'corrected')) ? listAll(join(root, 'corrected')) : []).toEqual([]);
  });

  it('removes temporary files left by an interrupted run', async () => {
    const root = photos(1);
    writeTree(root, { 'corrected/.p0.jpg.123-abc.pfc-partial': 'half a file' });
    const { events } = await run(root, { backend: new FakeBackend() });
    expect(events.find((e) => e.type === 'cleanup')).toEqual({ type: 'cleanup', removed: [join(root, 'corrected/.p0.jpg.123-abc.pfc-partial')] });
    expect(listAll(join(root, 'corrected'))).toEqual(['.pfc-manifest.jsonl', 'p0.jpg']);
  });

  it('in place: keeps the original, skips on rerun, and redoes from the original when parameters change', async () => {
    const root = tempDir();
    const original = pngBytes(100, 100, 'the original');
    writeTree(root, { 'a.png': original });
    const inPlace = { output: { kind: 'in-place' as const } };
    const first = await run(root, { backend: new FakeBackend() }, inPlace);
    expect(first.summary.corrected).toBe(1);
    expect(readFileSync(join(root, '.pfc-originals/a.png'))).toEqual(original);
    expect(readFileSync(join(root, 'a.png'))).toEqual(Buffer.concat([original, CORRECTED_MARK]));
    const mode = statSync(join(root, 'a.png')).mode;

    const second = new FakeBackend();
    expect((await run(root, { backend: second }, inPlace)).summary.upToDate).toBe(1);
    expect(second.calls).toHaveLength(0);

    const third = new FakeBackend();
    await run(root, { backend: third, params: { outputQuality: 50 } }, inPlace);
    expect(Buffer.from(third.calls[0]!.input)).toEqual(original);
    expect(readFileSync(join(root, 'a.png'))).toEqual(Buffer.concat([original, CORRECTED_MARK]));
    expect(statSync(join(root, 'a.png')).mode).toBe(mode);
  });

  it('records a new input\'s hash from its upload, or reads the file when the backend did not read it to the end', async () => {
    const sha = (b: Uint8Array) => `sha256:${createHash('sha256').update(b).digest('hex')}`;
    const manifestHashes = async (root: string) => Object.fromEntries((await Manifest.load(join(root, 'corrected'), 'mirror')).all().map((r) => [r.output, r.inputHash]));
    const expected = (root: string) => Object.fromEntries(listAll(root).filter((f) => !f.startsWith('corrected')).map((f) => [f, sha(readFileSync(join(root, f)))]));

    // The backend streams the whole file (as an upload does): the hash is taken on the way.
    const streamed = photos();
    vi.mocked(hashFile).mockClear();
    await run(streamed, { backend: new FakeBackend() });
    expect(await manifestHashes(streamed)).toEqual(expected(streamed));
    expect(hashFile).not.toHaveBeenCalled();

    // This backend reads one chunk of the stream (a sniff) and uploads bytes it got elsewhere.
    class SniffingBackend extends FakeBackend {
      constructor(private readonly root: string) {
        super();
      }
      override async correct(input: FileInput, params: PfcParams, options: CorrectOptions = {}) {
        const reader = (await (input as () => Promise<ReadableStream<Uint8Array>>)()).getReader();
        await reader.read();
        await reader.cancel();
        const rel = listAll(this.root).find((f) => f.endsWith(options.fileName!))!;
        return super.correct(readFileSync(join(this.root, rel)), params, options);
      }
    }
    const sniffed = photos();
    vi.mocked(hashFile).mockClear();
    await run(sniffed, { backend: new SniffingBackend(sniffed) });
    expect(await manifestHashes(sniffed)).toEqual(expected(sniffed));
    expect(hashFile).toHaveBeenCalledTimes(4);

    // The recorded hash is the one a rerun compares: a touched but unchanged file is not redone.
    utimesSync(join(streamed, 'p0.jpg'), new Date(), new Date(Date.now() + 5000));
    const again = new FakeBackend();
    expect((await run(streamed, { backend: again })).summary).toMatchObject({ corrected: 0, upToDate: 4 });
  });
});
