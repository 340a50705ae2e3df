import { createHash } from 'node:crypto';
import { appendFileSync, copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Manifest, MANIFEST_FILE, settingsKey, type ManifestEntry } from '../src/index';
import { packHash, unpackHash } from '../src/manifest-lines';
import { tempDir } from './helpers';

const V1_FIXTURE = join(dirname(fileURLToPath(import.meta.url)), 'fixtures/manifest-v1.jsonl');

const entry = (dir: string, name: string, extra: Partial<Parameters<Manifest['record']>[0]> = {}) => ({
  output: join(dir, name), input: join(dir, '..', name), inputHash: `sha256:${name}`, inputSize: 10, inputMtimeMs: 1,
  settingsKey: settingsKey('emulator', {}), params: {}, backend: 'emulator', outputHash: 'sha256:out', outputSize: 12, outputMtimeMs: 2,
  durationMs: 5, completedAt: new Date(0).toISOString(), ...extra,
});

describe('Manifest', () => {
  it('appends one line per output and reads them back with paths relative to its folder', async () => {
    const dir = join(tempDir(), 'corrected');
    const m = await Manifest.load(dir, 'mirror');
    await m.record(entry(dir, 'a.jpg'));
    await m.record(entry(dir, 'sub/b.jpg'));
    const lines = readFileSync(join(dir, MANIFEST_FILE), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines[0]).toEqual({ type: 'header', format: 'pfc-manifest', version: 2, mode: 'mirror' });
    // The parameters once (a settings line), then one short line per output referring to them.
    expect(lines[1]).toMatchObject({ t: 's', s: 1, key: settingsKey('emulator', {}), backend: 'emulator', params: {} });
    expect(lines[3]).toMatchObject({ t: 'd', o: 'sub/b.jpg', i: '../sub/b.jpg', s: 1 });
    expect(lines).toHaveLength(4);
    const again = await Manifest.load(dir, 'mirror');
    expect(again.get(join(dir, 'sub/b.jpg'))?.inputHash).toBe('sha256:sub/b.jpg');
    expect(again.size).toBe(2);
  });

  it('ignores a torn last line (a kill -9 during an append) and compacts to one line per output', async () => {
    const dir = tempDir();
    const m = await Manifest.load(dir, 'mirror');
    await m.record(entry(dir, 'a.jpg'));
    await m.record(entry(dir, 'a.jpg', { outputHash: 'sha256:newer' }));
    appendFileSync(join(dir, MANIFEST_FILE), '{"type":"done","output":"b.jpg","inpu');
    const again = await Manifest.load(dir, 'mirror');
    expect(again.all().map((e) => [e.output, e.outputHash])).toEqual([['a.jpg', 'sha256:newer']]);
    await again.compact();
    expect(readFileSync(join(dir, MANIFEST_FILE), 'utf8').trim().split('\n')).toHaveLength(3);
  });

  it('reads a manifest written in format version 1 (every line with its parameters) and migrates it before appending', async () => {
    const dir = join(tempDir(), 'out');
    mkdirSync(dir);
    copyFileSync(V1_FIXTURE, join(dir, MANIFEST_FILE));
    const m = await Manifest.load(dir, 'mirror');
    expect(m.size).toBe(3);
    const a = m.get(join(dir, 'a.jpg'));
    expect(a).toMatchObject({ input: '../in/a.jpg', inputHash: `sha256:${'0'.repeat(64)}`, inputSize: 100, inputMtimeMs: 1700000000000.5, backend: 'emulator', outputHash: `sha256:${'f'.repeat(63)}0`, outputSize: 50, outputMtimeMs: 1700000001000.25, jobId: 'job-a', durationMs: 10 });
    expect(a?.params).toMatchObject({ fileType: 'image', outputQuality: 90 });
    // Entries of one settings key share one parameter object.
    expect(m.get(join(dir, 'sub/b.jpg'))?.params).toBe(a?.params);
    // The result being renamed into place when the old run was killed is still known as pfc's.
    expect(m.wrote(join(dir, 'd.jpg'), `sha256:${'d'.repeat(64)}`)).toBe(true);
    expect(m.wrote(join(dir, 'd.jpg'), `sha256:${'e'.repeat(64)}`)).toBe(false);

    await m.record(entry(dir, 'e.jpg'));
    const lines = readFileSync(join(dir, MANIFEST_FILE), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ type: 'header', version: 2 });
    expect(lines.filter((l) => l.type === 'done')).toEqual([]);
    const again = await Manifest.load(dir, 'mirror');
    expect(again.all().map((e) => e.output).sort()).toEqual(['a.jpg', 'c.png', 'e.jpg', 'sub/b.jpg']);
    // Every field as read from version 1 (the hashes and job id are getters: read one by one).
    const fields = (e: ManifestEntry | undefined) => e && { ...e, inputHash: e.inputHash, outputHash: e.outputHash, jobId: e.jobId };
    expect(fields(again.get(join(dir, 'c.png')))).toEqual({ ...fields(m.get(join(dir, 'c.png'))), completedAt: undefined });
    expect(again.get(join(dir, 'c.png'))?.settingsKey).toBe(m.get(join(dir, 'c.png'))?.settingsKey);
    expect(again.wrote(join(dir, 'd.jpg'), `sha256:${'d'.repeat(64)}`)).toBe(true);
  });

  it('tidy rewrites the file only when many of its lines are superseded, keeping every current entry', async () => {
    const dir = tempDir();
    const m = await Manifest.load(dir, 'mirror');
    for (let i = 0; i < 100; i++) await m.record(entry(dir, `p${i}.jpg`));
    const fileLines = () => readFileSync(join(dir, MANIFEST_FILE), 'utf8').trim().split('\n').length;
    await m.tidy();
    expect(fileLines()).toBe(102);
    // 40 redone outputs (and their writing notes) are not yet "many" of 182 lines…
    for (let i = 0; i < 20; i++) {
      await m.intend(join(dir, `p${i}.jpg`), `sha256:${'a'.repeat(63)}${i % 10}`);
      await m.record(entry(dir, `p${i}.jpg`, { outputHash: `sha256:${'a'.repeat(63)}${i % 10}` }));
    }
    await m.tidy();
    expect(fileLines()).toBe(142);
    // …80 of 222 are.
    for (let i = 20; i < 60; i++) await m.record(entry(dir, `p${i}.jpg`, { settingsKey: settingsKey('web', {}), backend: 'web' }));
    await m.tidy();
    // Header, two settings lines, one line per output.
    expect(fileLines()).toBe(103);
    const again = await Manifest.load(dir, 'mirror');
    expect(again.size).toBe(100);
    expect(again.get(join(dir, 'p5.jpg'))?.outputHash).toBe(`sha256:${'a'.repeat(63)}5`);
    expect(again.get(join(dir, 'p30.jpg'))?.backend).toBe('web');
    expect(again.get(join(dir, 'p70.jpg'))?.inputHash).toBe('sha256:p70.jpg');
  });

  it('restat: new stats of recorded bytes are written by tidy, appended when few, the file rewritten when many; a stat of a moment ago is not kept', async () => {
    const dir = tempDir();
    const m = await Manifest.load(dir, 'mirror');
    for (let i = 0; i < 100; i++) await m.record(entry(dir, `p${i}.jpg`));
    const fileLines = () => readFileSync(join(dir, MANIFEST_FILE), 'utf8').trim().split('\n').length;
    const hourAgo = Date.now() - 3_600_000;
    m.restat(join(dir, 'p1.jpg'), { input: { size: 10, mtimeMs: hourAgo } });
    m.restat(join(dir, 'p2.jpg'), { output: { size: 12, mtimeMs: hourAgo + 1 } });
    m.restat(join(dir, 'p3.jpg'), { output: { size: 12, mtimeMs: Date.now() - 100 } });
    m.restat(join(dir, 'unknown.jpg'), { output: { size: 12, mtimeMs: hourAgo } });
    expect(m.get(join(dir, 'p1.jpg'))).toMatchObject({ inputSize: 10, inputMtimeMs: hourAgo, outputMtimeMs: 2 });
    await m.tidy();
    expect(fileLines()).toBe(102 + 2);
    const again = await Manifest.load(dir, 'mirror');
    expect(again.get(join(dir, 'p1.jpg'))).toMatchObject({ inputMtimeMs: hourAgo, outputMtimeMs: 2, inputHash: 'sha256:p1.jpg' });
    expect(again.get(join(dir, 'p2.jpg'))).toMatchObject({ inputMtimeMs: 1, outputMtimeMs: hourAgo + 1, outputHash: 'sha256:out' });
    expect(again.get(join(dir, 'p3.jpg'))?.outputMtimeMs).toBe(2);
    expect(again.size).toBe(100);

    for (let i = 0; i < 100; i++) again.restat(join(dir, `p${i}.jpg`), { output: { size: 12, mtimeMs: hourAgo + 7 } });
    await again.tidy();
    // Header, settings, one line per output.
    expect(fileLines()).toBe(102);
    expect((await Manifest.load(dir, 'mirror')).get(join(dir, 'p99.jpg'))?.outputMtimeMs).toBe(hourAgo + 7);
  });

  it('keeps a line short: parameters not repeated, hashes packed', async () => {
    const dir = tempDir();
    const m = await Manifest.load(dir, 'mirror');
    const sha = (c: string) => `sha256:${c.repeat(64)}`;
    for (let i = 0; i < 50; i++) await m.record(entry(dir, `set-1/img-${String(i).padStart(5, '0')}.jpg`, { inputHash: sha('1'), outputHash: sha('2'), jobId: '0b4f0e9a-6a57-4d0e-9d55-6f1d5a0c9e11', inputMtimeMs: 1763952115123.4568, outputMtimeMs: 1763952115223.4568 }));
    const lines = readFileSync(join(dir, MANIFEST_FILE), 'utf8').trim().split('\n');
    expect(Math.max(...lines.slice(2).map((l) => Buffer.byteLength(l) + 1))).toBeLessThanOrEqual(300);
    expect((await Manifest.load(dir, 'mirror')).get(join(dir, 'set-1/img-00007.jpg'))?.outputHash).toBe(sha('2'));
  });

  it('settings keys differ by backend and by parameters, not by key order', () => {
    expect(settingsKey('web', { width: 100, preset: 'Pro' })).toBe(settingsKey('web', { preset: 'Pro', width: 100 }));
    expect(settingsKey('web', {})).not.toBe(settingsKey('emulator', {}));
    expect(settingsKey('web', { width: 100 })).not.toBe(settingsKey('web', { width: 101 }));
  });
});

describe('packed hashes', () => {
  it('unpack to the SHA-256 hex they were packed from', () => {
    for (let i = 0; i < 500; i++) {
      const hash = `sha256:${createHash('sha256').update(String(i)).digest('hex')}`;
      const packed = packHash(hash);
      expect(packed).toHaveLength(43);
      expect(unpackHash(packed)).toBe(hash);
    }
    expect(unpackHash(packHash(`sha256:${'0'.repeat(64)}`))).toBe(`sha256:${'0'.repeat(64)}`);
    expect(unpackHash(packHash(`sha256:${'f'.repeat(64)}`))).toBe(`sha256:${'f'.repeat(64)}`);
    expect(unpackHash(packHash('sha256:other'))).toBe('sha256:other');
  });
});
