/**
 * As a user installs it: the packed tarballs of every published package are
 * installed with npm into a fresh folder outside the repository (no workspace
 * links; third-party dependencies from npm's cache, or the registry the first
 * time), then, in a network namespace that has only loopback (nothing can be
 * downloaded at run time):
 * - `import` and `require` of `@pfc/core` (and `@pfc/core/media`) in Node;
 * - the README's example type-checks against the packed declarations under
 *   `moduleResolution` node16 (as ESM and as CommonJS) and bundler, and a wrong
 *   call is still an error there (types are not `any`);
 * - an esbuild browser bundle of core pulls in no Node built-in;
 * - the installed `pfc --version` prints the release's version and `pfc correct`
 *   corrects a sample folder on the embedded emulator, also enlarging with the
 *   engine's own ESRGAN model (from the installed packages, nothing downloaded).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { packAll, type Packed } from '../../scripts/packaging/npm.mjs';
import { releaseInfo, ROOT } from '../../scripts/packaging/workspace.mjs';

const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const NODE_TYPES = join(ROOT, 'node_modules/@types');
const SAMPLES = join(ROOT, 'samples/portraits');

/** Loopback only: `unshare -n` gives a fresh network namespace (root here), where only `lo` is brought up. */
const offlineAvailable = (() => {
  try {
    execFileSync('unshare', ['-n', 'sh', '-c', 'ip link set lo up'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/**
 * Run a command with no network (or, where namespaces are unavailable, with every proxy pointed nowhere).
 * The registry setting stays as it is: npm's cache is keyed by the registry's address.
 */
function offline(cmd: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv }): { stdout: string; stderr: string } {
  const env = { ...process.env, HTTP_PROXY: 'http://127.0.0.1:9', HTTPS_PROXY: 'http://127.0.0.1:9', NODE_PATH: '', ...opts.env };
  const quoted = [cmd, ...args].map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(' ');
  const [bin, argv] = offlineAvailable ? ['unshare', ['-n', 'sh', '-c', `ip link set lo up && exec ${quoted}`]] : [cmd, args];
  const r = spawnSync(bin, argv as string[], { cwd: opts.cwd, env, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  return { stdout: r.stdout, stderr: r.stderr };
}

/** The README's example (its first ```ts block), as a user would paste it. */
function readmeExample(): string {
  const readme = readFileSync(join(ROOT, 'packages/core/README.md'), 'utf8');
  const block = /```ts\n([\s\S]*?)```/.exec(readme);
  if (!block) throw new Error('packages/core/README.md has no ts example');
  return block[1]!;
}

/** Core used without Node's types, as a browser or UXP project would (both entries). */
const PLAIN_CONSUMER = `import { WebApiClient, ParameterError, type ClientOptions } from '@pfc/core';
import { sniffMedia } from '@pfc/core/media';
const options: ClientOptions = { apiKey: 'key', baseURL: 'http://127.0.0.1:8080/v2' };
export async function run(bytes: Uint8Array): Promise<number> {
  const kind: string | undefined = sniffMedia(bytes)?.format;
  try {
    const { bytes: out } = await new WebApiClient(options).correctBytes(bytes, { preset: 'Universal' });
    return out.length + (kind ? 1 : 0);
  } catch (err) {
    if (err instanceof ParameterError) return -1;
    throw err;
  }
}
`;

/** Type-check one consumer file in its own folder under the app; returns tsc's diagnostics ('' when clean). */
function typecheck(name: string, file: string, options: Record<string, unknown>, source: string): string {
  const dir = join(app, `tsc-${name}`);
  mkdirSync(dir, { recursive: true });
  // CommonJS has no top-level await: the same lines inside an async function.
  const body = file.endsWith('.cts') && /\bawait\b/.test(source.split('export async')[0]!)
    ? source.replace(/^(import .*\n)+/m, (imports) => `${imports}void (async () => {\n`) + '})();\n'
    : source;
  writeFileSync(join(dir, file), body);
  // skipLibCheck off: the packed declarations themselves are checked too.
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { target: 'es2022', strict: true, noEmit: true, skipLibCheck: false, lib: ['es2023', 'dom'], ...options },
    files: [file],
  }));
  try {
    execFileSync(process.execPath, [TSC, '-p', dir], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return '';
  } catch (err) {
    return String((err as { stdout?: string }).stdout || err);
  }
}

// A wrong call must stay an error: if the packed types degraded to `any`, the directive is unused and tsc fails.
const WRONG_CALL = `\n// @ts-expect-error preset is a string\nvoid new WebApiClient({ apiKey: 'k' }).correctBytes(new Uint8Array(), { preset: 42 });\n`;

let work: string;
let app: string;
let tarballs: Packed[];
const version = releaseInfo().version;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'pfc-install-'));
  tarballs = packAll(join(work, 'tarballs'));
  app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }, null, 2));
  // The third-party dependencies (sharp, TensorFlow.js, ffmpeg…) come from npm's cache, or from the
  // registry the first time; install scripts stay off (nothing of ours may need an install step).
  execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock', ...tarballs.map((t) => t.file)], {
    cwd: app,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_PATH: '' },
  });
}, 600_000);
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packed packages, installed from their tarballs', () => {
  test('installed as real folders, not links into the repository', () => {
    for (const t of tarballs) {
      const dir = join(app, 'node_modules', ...t.name.split('/'));
      expect(existsSync(join(dir, 'package.json')), t.name).toBe(true);
      expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version).toBe(version);
      expect(readdirSync(join(app, 'node_modules', '@pfc'), { withFileTypes: true }).every((d) => d.isDirectory() && !d.isSymbolicLink())).toBe(true);
    }
  });

  test('import and require of @pfc/core give the same clients', () => {
    const esm = offline(process.execPath, ['--input-type=module', '-e',
      "const m = await import('@pfc/core'); const media = await import('@pfc/core/media'); console.log(typeof m.WebApiClient, typeof m.ParameterError, Object.keys(media).length > 0)"], { cwd: app }).stdout;
    const cjs = offline(process.execPath, ['-e',
      "const m = require('@pfc/core'); const media = require('@pfc/core/media'); console.log(typeof m.WebApiClient, typeof m.ParameterError, Object.keys(media).length > 0)"], { cwd: app }).stdout;
    expect(esm.trim()).toBe('function function true');
    expect(cjs.trim()).toBe('function function true');
  });

  test('the README example type-checks against the packed declarations (node16, ESM, with @types/node)', () => {
    expect(typecheck('readme', 'consumer.mts', { module: 'node16', moduleResolution: 'node16', types: ['node'], typeRoots: [NODE_TYPES] }, readmeExample() + WRONG_CALL)).toBe('');
  }, 120_000);

  test.each([
    ['node16 (CommonJS)', 'consumer.cts', { module: 'node16', moduleResolution: 'node16' }],
    ['bundler', 'consumer.ts', { module: 'esnext', moduleResolution: 'bundler' }],
  ])('a consumer type-checks against the packed declarations: %s', (label, file, options) => {
    expect(typecheck(label.replace(/\W+/g, '-'), file, { ...options, types: [] }, PLAIN_CONSUMER + WRONG_CALL)).toBe('');
  }, 120_000);

  test('a browser bundle of @pfc/core has no Node built-in in it', async () => {
    writeFileSync(join(app, 'browser-entry.js'), "import { WebApiClient } from '@pfc/core';\nimport { sniffMedia } from '@pfc/core/media';\nwindow.pfc = { WebApiClient, sniffMedia };\n");
    const out = await build({
      absWorkingDir: app,
      entryPoints: ['browser-entry.js'],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      logLevel: 'silent',
      metafile: true,
    });
    const inputs = Object.keys(out.metafile.inputs);
    expect(inputs.some((i) => i.includes('node_modules/@pfc/core/dist/'))).toBe(true);
    const imports = Object.values(out.metafile.inputs).flatMap((i) => i.imports.map((x) => x.path));
    expect(imports.filter((p) => p.startsWith('node:') || /^(fs|path|os|crypto|stream|http|https|url|util|buffer|child_process)$/.test(p))).toEqual([]);
    expect(out.outputFiles[0]!.text).not.toMatch(/\brequire\(["']|["']node:/);
  });

  test('the installed pfc and pfc-emulator start and say their version', () => {
    const bin = join(app, 'node_modules/.bin');
    expect(offline(join(bin, 'pfc'), ['--version'], { cwd: app }).stdout.trim()).toContain(version);
    expect(offline(join(bin, 'pfc-emulator'), ['--help'], { cwd: app }).stderr).toMatch(/--web-port/);
  });

  test('the installed pfc corrects a sample folder on the embedded emulator, with no network', () => {
    const photos = join(work, 'photos');
    cpSync(SAMPLES, photos, { recursive: true });
    const names = readdirSync(photos).filter((f) => /\.(jpe?g|png)$/i.test(f));
    expect(names.length).toBeGreaterThan(0);
    const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');
    const before = Object.fromEntries(names.map((n) => [n, sha(join(photos, n))]));
    offline(join(app, 'node_modules/.bin/pfc'), ['correct', photos, '--preset', 'Universal'], { cwd: work, env: { PFC_API_KEY: '' } });
    for (const n of names) {
      const out = join(photos, 'corrected', n);
      expect(existsSync(out), n).toBe(true);
      expect(sha(out), n).not.toBe(before[n]);
      expect(sha(join(photos, n)), `${n} original untouched`).toBe(before[n]);
      expect(readFileSync(out).subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    }
  }, 300_000);

  test('the installed pfc enlarges with the engine\'s own model (ESRGAN, shipped in @pfc/engine\'s models/), with no network', async () => {
    const dir = join(work, 'upscale');
    mkdirSync(dir);
    await sharp(join(SAMPLES, readdirSync(SAMPLES).find((f) => f.endsWith('.jpg'))!)).resize(96, 96).jpeg().toFile(join(dir, 'small.jpg'));
    offline(join(app, 'node_modules/.bin/pfc'), ['correct', dir, '-p', 'scale=200'], { cwd: work, env: { PFC_API_KEY: '' } });
    // Without the model files the engine refuses the enlargement and the file is reported failed.
    const meta = await sharp(join(dir, 'corrected', 'small.jpg')).metadata();
    expect([meta.width, meta.height]).toEqual([192, 192]);
  }, 300_000);
});
