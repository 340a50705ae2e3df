/**
 * The VS Code extension's packages.
 *
 * - The universal `.vsix` (built by plugins/vscode's `build`): the bundled
 *   extension alone. It corrects on the hosted service, a container or a
 *   running emulator; its embedded emulator needs `@pfc/emulator` from
 *   elsewhere (see plugins/vscode/src/embedded.ts).
 * - A platform `.vsix` (`vsce package --target linux-x64`): the same files
 *   plus `node_modules/` holding `@pfc/emulator` and everything it loads
 *   (sharp's native build, the engine's models, TensorFlow.js, ffmpeg),
 *   installed from the packed tarballs. The extension finds it next to itself
 *   (the first place `emulatorCandidates` looks), so a fresh install works
 *   offline with nothing else installed. VS Code picks the platform package
 *   over the universal one on a matching machine. Native parts exist for the
 *   machine that builds it only (the registry here serves Linux x64 builds,
 *   and the engine depends on @ffmpeg-installer/linux-x64), so the target is
 *   that machine's.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './workspace.mjs';

const PLUGIN = join(ROOT, 'plugins/vscode');
const VSCE = join(ROOT, 'node_modules/@vscode/vsce/vsce');

/** The files of the universal package (what plugins/vscode/.vscodeignore lets in). */
const LISTING = ['dist/extension.js', 'dist/rewrite-worker.js', 'media', 'package.json', 'package.nls.json', 'README.md', 'CHANGELOG.md', 'LICENSE'];

/** The packages the embedded emulator needs, from `packAll`'s tarballs. */
const EMULATOR_PACKAGES = ['@pfc/core', '@pfc/node-io', '@pfc/engine', '@pfc/emulator'];

/** VS Code's name for this machine's platform (`linux-x64`, `darwin-arm64`, `win32-x64`, …). */
export const hostTarget = () => `${process.platform}-${process.arch}`;

/** Remove what nothing loads at run time: source maps, declarations, package docs other than licences. */
function prune(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name === '.bin') rmSync(p, { recursive: true, force: true });
      else prune(p);
    } else if (/\.(map|d\.ts|d\.mts|d\.cts|md)$/i.test(e.name) && !/^licen[cs]e|^notice|^copying/i.test(e.name)) {
      rmSync(p, { force: true });
    }
  }
}

/**
 * Build the platform `.vsix` for this machine into `dest`.
 * `tarballs`: `packAll`'s result (the emulator and its workspace dependencies are installed from them).
 */
export function vscodePlatformVsix({ tarballs, dest, version, target = hostTarget() }) {
  const stage = mkdtempSync(join(tmpdir(), 'pfc-vsix-'));
  try {
    for (const rel of LISTING) cpSync(join(PLUGIN, rel), join(stage, rel), { recursive: true });
    // The staged manifest declares what node_modules holds (vsce collects exactly the `npm list
    // --production` tree); the extension's own dependencies are bundled into dist/extension.js.
    const manifest = JSON.parse(readFileSync(join(PLUGIN, 'package.json'), 'utf8'));
    delete manifest.devDependencies;
    manifest.dependencies = Object.fromEntries(EMULATOR_PACKAGES.map((name) => [name, version]));
    writeFileSync(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    const ignore = readFileSync(join(PLUGIN, '.vscodeignore'), 'utf8');
    writeFileSync(join(stage, '.vscodeignore'), `${ignore.trimEnd()}\n!node_modules/**\n`);
    const files = EMULATOR_PACKAGES.map((name) => {
      const t = tarballs.find((x) => x.name === name);
      if (!t) throw new Error(`no tarball for ${name}`);
      return t.file;
    });
    execFileSync('npm', ['install', '--no-save', '--prefer-offline', '--omit=dev', '--ignore-scripts', '--no-package-lock', '--no-audit', '--no-fund', ...files], {
      cwd: stage,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    prune(join(stage, 'node_modules'));

    mkdirSync(dest, { recursive: true });
    const out = join(dest, `pfc-vscode-${target}-${version}.vsix`);
    execFileSync(process.execPath, [VSCE, 'package', '--dependencies', '--target', target, '--out', out], {
      cwd: stage,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    return { file: out, size: statSync(out).size, target };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}
