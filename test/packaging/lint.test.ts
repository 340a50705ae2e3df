/**
 * The published packages as npm would ship them: each packed tarball passes
 * publint (strict: warnings fail too) and @arethetypeswrong/cli (types resolve
 * and match the module format for every resolution mode a consumer may use),
 * and the release metadata agrees with its one source (scripts/packaging/workspace.mjs).
 * Runs on the built packages (`npm test` builds first); everything is local.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
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

  test("@pfc/core's declarations carry maps whose sources are shipped (Go to Definition lands in src)", () => {
    const core = packed.find((p) => p.name === '@pfc/core')!;
    const root = mkdtempSync(join(tmpdir(), 'pfc-core-maps-'));
    try {
      execFileSync('tar', ['-xzf', core.file, '-C', root]);
      const pkgDir = join(root, 'package');
      const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { exports: unknown };
      const entries = typesEntries(manifest.exports);
      expect(entries).toEqual(expect.arrayContaining(['./dist/index.d.ts', './dist/index.d.cts']));
      expect(entries.length).toBeGreaterThanOrEqual(4);
      expect(entries.flatMap((entry) => declarationMapProblems(pkgDir, entry))).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
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

/** Every `types` target named anywhere in an `exports` map. */
function typesEntries(node: unknown): string[] {
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === 'types' && typeof value === 'string' ? [value] : typesEntries(value));
}

/**
 * What keeps the declaration `entry` (relative to the unpacked package) from
 * leading an editor to its source: a missing `sourceMappingURL`, a missing map,
 * or a map source that is not a file inside the package.
 */
function declarationMapProblems(pkgDir: string, entry: string): string[] {
  const file = resolve(pkgDir, entry);
  if (!existsSync(file)) return [`${entry}: not in the tarball`];
  const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(readFileSync(file, 'utf8'))?.[1];
  if (!url) return [`${entry}: no sourceMappingURL`];
  const mapFile = resolve(dirname(file), url);
  if (!existsSync(mapFile)) return [`${entry}: its map ${url} is not in the tarball`];
  const map = JSON.parse(readFileSync(mapFile, 'utf8')) as { sources?: string[]; sourceRoot?: string };
  if (!map.sources?.length) return [`${entry}: its map names no sources`];
  return map.sources
    .map((source) => resolve(dirname(mapFile), map.sourceRoot ?? '', source))
    .filter((source) => relative(pkgDir, source).startsWith('..') || !existsSync(source))
    .map((source) => `${entry}: map source ${relative(pkgDir, source)} is not in the tarball`);
}
