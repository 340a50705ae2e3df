/**
 * The e2e setup on a machine where code-server never ran: its first
 * `--version` prints a config notice before the version and writes a config
 * file (with a password) into the config home. The check must still see the
 * version, and nothing may land in the real HOME.
 */
import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
// @ts-expect-error a plain .mjs script without types
import { codeServerVersion, parseCodeServerVersion } from '../scripts/setup-e2e.mjs';

const parse = parseCodeServerVersion as (out: string) => string | undefined;
const version = codeServerVersion as (bin: string) => string | undefined;

/** A stand-in for code-server's entry.js that behaves as 4.100.3 does on a never-run machine. */
const FAKE_ENTRY = `
const { existsSync, mkdirSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const base = process.env.XDG_CONFIG_HOME || join(process.env.HOME, '.config');
const file = join(base, 'code-server', 'config.yaml');
if (!existsSync(file)) {
  mkdirSync(join(base, 'code-server'), { recursive: true });
  writeFileSync(file, 'password: secret\\n');
  console.log('[2026-11-23T00:00:00.000Z] info  Wrote default config file to ' + file);
}
console.log('4.100.3 5d3c9bd8b0ee5a5ab6b3f0c8ba33d1d1d3a6b6a1 with Code 1.100.3');
`;

describe('setup-e2e on a never-run machine', () => {
  const made: string[] = [];
  const realHome = process.env.HOME;
  afterEach(() => {
    process.env.HOME = realHome;
    for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  test('the version is found after the "Wrote default config file" notice', () => {
    expect(parse('[2026-11-23T00:00:00.000Z] info  Wrote default config file to /root/.config/code-server/config.yaml\n4.100.3 abc with Code 1.100.3\n')).toBe('4.100.3');
    expect(parse('4.100.3 abc with Code 1.100.3\n')).toBe('4.100.3');
    expect(parse('error: something\n')).toBeUndefined();
  });

  test('the version check writes nothing into HOME or ~/.config', () => {
    const home = mkdtempSync(join(tmpdir(), 'pfc-fake-home-'));
    const bin = join(mkdtempSync(join(tmpdir(), 'pfc-fake-cs-')), 'entry.js');
    made.push(home, join(bin, '..'));
    writeFileSync(bin, FAKE_ENTRY);
    chmodSync(bin, 0o755);
    process.env.HOME = home;
    const saved = process.env.XDG_CONFIG_HOME;
    delete process.env.XDG_CONFIG_HOME;
    try {
      expect(version(bin)).toBe('4.100.3');
    } finally {
      if (saved !== undefined) process.env.XDG_CONFIG_HOME = saved;
    }
    expect(readdirSync(home)).toEqual([]);
  });
});
