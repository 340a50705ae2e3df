import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../src/io';
import { paramsFromArgs } from '../src/params';
import { humanRenderer, jsonRenderer, UP_TO_DATE_PER_LINE } from '../src/render';

function fakeIo(tty: boolean): { io: CliIo; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  const stdout = Object.assign(new PassThrough(), { isTTY: tty, columns: 100 });
  const stderr = Object.assign(new PassThrough(), { isTTY: tty, columns: 100 });
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  const io: CliIo = { stdout, stderr, stdin: Object.assign(new PassThrough(), { isTTY: false }), env: { NO_COLOR: '1' }, cwd: '/work', onInterrupt: () => () => undefined };
  return { io, out: () => out, err: () => err };
}

describe('humanRenderer', () => {
  it('draws a progress bar on a terminal and prints finished files above it', () => {
    const { io, out, err } = fakeIo(true);
    const r = humanRenderer(io);
    r.event({ type: 'plan', files: 4, bytes: 4000, excluded: 0, outputRoots: ['/work/out'], concurrency: 2, backend: 'emulator' });
    r.event({ type: 'skipped', input: '/work/a.jpg', rel: 'a.jpg', code: 'up-to-date', reason: 'done', bytes: 1000 });
    r.event({ type: 'start', input: '/work/b.jpg', rel: 'b.jpg', output: '/work/out/b.jpg', bytes: 1000, reason: 'new' });
    r.event({ type: 'corrected', input: '/work/b.jpg', rel: 'b.jpg', output: '/work/out/b.jpg', bytesIn: 1000, bytesOut: 1200, durationMs: 1500, warnings: [] });
    r.event({ type: 'start', input: '/work/c.jpg', rel: 'sub/c.jpg', output: '/work/out/sub/c.jpg', bytes: 1000, reason: 'new' });
    r.stop();
    expect(out()).toBe('✓ b.jpg → out/b.jpg (1.2 kB, 1.5 s)\n');
    const frames = err().split('\r\x1b[2K').filter(Boolean);
    expect(frames.at(-1)).toMatch(/^\[██████████░░░░░░░░░░\] 2\/4 files · .* · ETA .* · c\.jpg$/);
  });

  it("says when the service makes a file wait, and for how long (the wait's own words from core)", () => {
    const { io, out } = fakeIo(false);
    const r = humanRenderer(io);
    r.event({ type: 'waiting', input: '/work/b.jpg', rel: 'sub/b.jpg', wait: { reason: 'Service busy (rate limited)', delayMs: 41_200, attempt: 1, maxRetries: 4, rateLimited: 'requests' } });
    r.event({ type: 'waiting', input: '/work/c.jpg', rel: 'c.jpg', wait: { reason: 'Service busy (too many jobs at once)', delayMs: 185_000, attempt: 3, rateLimited: 'jobs' } });
    r.stop();
    expect(out()).toBe('⏸ sub/b.jpg: Service busy (rate limited) — retrying in 42 s (attempt 2 of 5)\n⏸ c.jpg: Service busy (too many jobs at once) — retrying in 3:05\n');
  });

  it('prints plain lines without a terminal (no bar, no escape codes)', () => {
    const { io, out, err } = fakeIo(false);
    const r = humanRenderer(io);
    r.event({ type: 'plan', files: 1, bytes: 10, excluded: 0, outputRoots: [], concurrency: 1, backend: 'web' });
    r.event({ type: 'failed', input: '/work/x.png', rel: 'x.png', error: 'job j FAILED: bad', errorName: 'JobFailedError' });
    r.stop();
    expect(out()).toBe('✗ x.png: job j FAILED: bad\n');
    expect(err()).toBe('');
  });
});

describe('jsonRenderer', () => {
  it('counts up-to-date files instead of a line each, and prints every other event as it comes', () => {
    const { io, out } = fakeIo(false);
    const r = jsonRenderer(io);
    const upToDate = (i: number) => r.event({ type: 'skipped', input: `/work/p${i}.jpg`, rel: `p${i}.jpg`, code: 'up-to-date', reason: 'done', bytes: 10 });
    r.event({ type: 'skipped', input: '/work/notes.txt', code: 'unsupported', reason: 'not an image' });
    for (let i = 0; i < UP_TO_DATE_PER_LINE + 2; i++) upToDate(i);
    r.event({ type: 'start', input: '/work/b.jpg', rel: 'b.jpg', output: '/work/out/b.jpg', bytes: 1000, reason: 'new' });
    upToDate(-1);
    r.stop();
    const lines = out().trim().split('\n').map((l) => JSON.parse(l) as { type: string; code?: string; files?: number; bytes?: number });
    expect(lines.map((l) => l.type)).toEqual(['skipped', 'up-to-date', 'up-to-date', 'start', 'up-to-date']);
    expect(lines[0]!.code).toBe('unsupported');
    expect(lines.filter((l) => l.type === 'up-to-date').map((l) => [l.files, l.bytes])).toEqual([[UP_TO_DATE_PER_LINE, UP_TO_DATE_PER_LINE * 10], [2, 20], [1, 10]]);
  });
});

describe('paramsFromArgs', () => {
  it('parses query-string forms into typed parameters', () => {
    expect(paramsFromArgs('Pro', ['outputType=jpg', 'long=2048', 'removeBackground=true', 'bgColor=#ffffff']).params).toEqual({
      preset: 'Pro', outputType: 'jpg', long: 2048, removeBackground: true, bgColor: '#ffffff',
    });
  });

  it('names every problem at once', () => {
    expect(() => paramsFromArgs('Pro', ['width', 'preset=x', 'width=9', 'width=10'])).toThrow(
      /--param takes key=value \(got "width"\)\n {2}--param width is given twice\n {2}preset is given both as --preset and as --param preset=…\n {2}width must be an integer from 32 to 10000 \(got "9"\)/,
    );
  });
});
