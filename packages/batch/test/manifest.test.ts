import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Manifest, MANIFEST_FILE, settingsKey } from '../src/index';
import { tempDir } from './helpers';

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
    expect(lines[0]).toEqual({ type: 'header', format: 'pfc-manifest', version: 1, mode: 'mirror' });
    expect(lines[2]).toMatchObject({ type: 'done', output: 'sub/b.jpg', input: '../sub/b.jpg' });
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
    expect(readFileSync(join(dir, MANIFEST_FILE), 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('settings keys differ by backend and by parameters, not by key order', () => {
    expect(settingsKey('web', { width: 100, preset: 'Pro' })).toBe(settingsKey('web', { preset: 'Pro', width: 100 }));
    expect(settingsKey('web', {})).not.toBe(settingsKey('emulator', {}));
    expect(settingsKey('web', { width: 100 })).not.toBe(settingsKey('web', { width: 101 }));
  });
});
