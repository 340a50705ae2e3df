/**
 * The published packages as npm would ship them: each packed tarball passes
 * publint (strict: warnings fail too) and @arethetypeswrong/cli (types resolve
 * and match the module format for every resolution mode a consumer may use),
 * and the release metadata agrees with its one source (scripts/packaging/workspace.mjs).
 * Runs on the built packages (`npm test` builds first); everything is local.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { packAll, type Packed } from '../../scripts/packaging/npm.mjs';
import { checkRelease, publishedPackages, ROOT } from '../../scripts/packaging/workspace.mjs';

const run = promisify(execFile);
const ATTW = join(ROOT, 'node_modules/@arethetypeswrong/cli/dist/index.js');

/**
 * attw profile per package: `@pfc/core` ships ESM and CommonJS and must pass
 * every resolution mode ("strict"); the Node-only packages are ESM only, which
 * "esm-only" accepts (a CommonJS `require` of them resolving to ESM is by design).
 */
const attwProfile = (name: string) => (name === '@pfc/core' ? 'strict' : 'esm-only');

let dir: string;
let packed: Packed[];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pfc-pack-lint-'));
  packed = packAll(dir);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('published packages', () => {
  test('the release metadata agrees with its one source (versions, repository)', () => {
    expect(checkRelease()).toEqual([]);
  });

  test('a tree where one package strays from the release is refused, naming it', () => {
    const root = mkdtempSync(join(tmpdir(), 'pfc-release-'));
    try {
      const repository = { type: 'git', url: 'git+https://example.invalid/r.git' };
      const write = (rel: string, pkg: object) => {
        mkdirSync(join(root, rel), { recursive: true });
        writeFileSync(join(root, rel, 'package.json'), JSON.stringify(pkg));
      };
      write('.', { name: 'r', private: true, workspaces: ['packages/*', 'plugins/*'], repository, bugs: { url: 'https://example.invalid/issues' } });
      write('packages/core', { name: '@pfc/core', version: '1.2.0', repository: { ...repository, directory: 'packages/core' } });
      write('packages/cli', { name: '@pfc/cli', version: '1.1.0', repository: { ...repository, directory: 'packages/cli' } });
      write('packages/batch', { name: '@pfc/batch', version: '1.2.0', repository: { ...repository, directory: 'elsewhere' } });
      write('plugins/figma', { name: '@pfc/figma', version: '1.2.0', private: true });
      expect(checkRelease(root)).toEqual([
        expect.stringMatching(/^packages\/batch: repository .*expected/),
        'packages/cli: version 1.1.0, the release is 1.2.0',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test('every packages/* package is packed, with declarations and a README', () => {
    expect(packed.map((p) => p.name).sort()).toEqual(publishedPackages().map((p) => p.pkg.name).sort());
    expect(packed.map((p) => p.name)).toEqual(expect.arrayContaining(['@pfc/core', '@pfc/cli', '@pfc/emulator', '@pfc/engine']));
    for (const p of packed) {
      const files = execFileSync('tar', ['-tzf', p.file], { encoding: 'utf8' }).split('\n');
      expect(files, p.name).toContain('package/dist/index.d.ts');
      expect(files, p.name).toContain('package/README.md');
    }
  });

  test('publint (strict) finds nothing in any tarball', async () => {
    const report: string[] = [];
    for (const p of packed) {
      const tarball = readFileSync(p.file);
      const { messages, pkg } = await publint({
        pack: { tarball: tarball.buffer.slice(tarball.byteOffset, tarball.byteOffset + tarball.byteLength) },
        strict: true,
        level: 'warning',
      });
      for (const m of messages) report.push(`${p.name}: [${m.type}] ${formatMessage(m, pkg) ?? m.code}`);
    }
    expect(report).toEqual([]);
  }, 60_000);

  test('are-the-types-wrong finds nothing in any tarball', async () => {
    // One attw process per tarball, all at once (each spends most of its time loading TypeScript).
    const results = await Promise.all(packed.map(async (p) => {
      try {
        await run(process.execPath, [ATTW, p.file, '--profile', attwProfile(p.name), '--no-definitely-typed', '--format', 'ascii', '--no-color', '--no-emoji']);
        return undefined;
      } catch (err) {
        const e = err as { stdout?: string; stderr?: string };
        return `${p.name}:\n${e.stdout ?? ''}${e.stderr ?? ''}`;
      }
    }));
    expect(results.filter(Boolean)).toEqual([]);
  }, 120_000);
});
