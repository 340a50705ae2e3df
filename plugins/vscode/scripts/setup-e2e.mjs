#!/usr/bin/env node
// Installs what the VS Code end-to-end test needs and is missing: a real VS Code
// (code-server, the only VS Code build in the npm registry, see
// shared/recipes/vscode-e2e.md) in a cache folder outside the repo, plus the
// Debian packages its install and the browser need. Idempotent and quiet when
// everything is already there. Prints the code-server path on its last line.
import { execFileSync, execSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, copyFileSync, chmodSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Newest code-server that runs on Node 20 (VS Code 1.100.3). */
export const CODE_SERVER_VERSION = '4.100.3';
/** The @vscode/ripgrep version code-server 4.100.3 depends on, and the binary it fetches. */
const RIPGREP_PKG_VERSION = '1.15.11';
const RIPGREP_ASSET = 'ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz';

/** Where code-server is installed: `PFC_CODE_SERVER_HOME` or `~/.cache/pfc-code-server/<version>`. */
export function codeServerHome() {
  return process.env.PFC_CODE_SERVER_HOME ?? join(homedir(), '.cache', 'pfc-code-server', CODE_SERVER_VERSION);
}

/** The code-server launcher inside the install folder. */
export function codeServerBin(home = codeServerHome()) {
  return join(home, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
}

function sh(cmd, env = process.env) {
  console.log(`$ ${cmd}`);
  execSync(cmd, { stdio: 'inherit', env: { ...env, DEBIAN_FRONTEND: 'noninteractive' } });
}

function hasCommand(name) {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Debian packages: libkrb5-dev (the kerberos module builds from source), ripgrep, chromium. */
function ensureDebianPackages() {
  const missing = [];
  if (!existsSync('/usr/include/krb5.h') && !existsSync('/usr/include/krb5/krb5.h')) missing.push('libkrb5-dev');
  if (!existsSync('/usr/bin/rg')) missing.push('ripgrep');
  if (!existsSync('/usr/bin/chromium')) missing.push('chromium', 'fonts-dejavu-core');
  if (missing.length === 0) return;
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  const sudo = root ? '' : 'sudo ';
  // Other e2e setups may hold the dpkg lock; wait for it rather than fail.
  sh(`${sudo}apt-get -o DPkg::Lock::Timeout=600 update -qq`);
  sh(`${sudo}apt-get -o DPkg::Lock::Timeout=600 install -y -qq ${missing.join(' ')}`);
}

/**
 * The version `code-server --version` reports. On a machine where code-server
 * never ran it first prints "info  Wrote default config file to …" (and other
 * log lines may follow), so the version is the first line that starts with
 * one, not the first characters of the output.
 */
export function parseCodeServerVersion(out) {
  for (const line of String(out).split(/\r?\n/)) {
    const m = /^(\d+\.\d+\.\d+)(?:\s|$)/.exec(line.trim());
    if (m) return m[1];
  }
  return undefined;
}

/**
 * Environment for running code-server outside a test session: HOME, XDG_* and
 * TMPDIR in a throw-away folder, so it writes its default config (with a
 * generated password) there and never into the real `~/.config/code-server`.
 */
export function throwAwayEnv(root) {
  const dirs = { HOME: 'home', XDG_CONFIG_HOME: 'xdg-config', XDG_CACHE_HOME: 'xdg-cache', XDG_DATA_HOME: 'xdg-data', TMPDIR: 'tmp' };
  const env = { ...process.env };
  for (const [k, d] of Object.entries(dirs)) {
    env[k] = join(root, d);
    mkdirSync(env[k], { recursive: true });
  }
  return env;
}

/** The version of the code-server launcher `bin`, run with a throw-away HOME; undefined when it does not run. */
export function codeServerVersion(bin, verbose = false) {
  const root = mkdtempSync(join(tmpdir(), 'pfc-code-server-version-'));
  try {
    const out = execFileSync(process.execPath, [bin, '--version'], { encoding: 'utf8', env: throwAwayEnv(root), stdio: ['ignore', 'pipe', verbose ? 'inherit' : 'ignore'] });
    if (verbose) console.error(`code-server --version: ${out}`);
    return parseCodeServerVersion(out);
  } catch (e) {
    if (verbose) console.error(String(e));
    return undefined;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function installed(home, verbose = false) {
  const bin = codeServerBin(home);
  if (!existsSync(bin)) {
    if (verbose) console.error(`missing ${bin}`);
    return false;
  }
  return codeServerVersion(bin, verbose) === CODE_SERVER_VERSION;
}

function installCodeServer(home) {
  // Install into a fresh sibling folder, then swap it in, so an interrupted
  // install never leaves a half-populated folder that looks installed.
  const parent = join(home, '..');
  mkdirSync(parent, { recursive: true });
  const staging = mkdtempSync(join(parent, `.staging-${CODE_SERVER_VERSION}-`));
  const tmp = mkdtempSync(join(tmpdir(), 'pfc-code-server-install-'));
  try {
    writeFileSync(join(staging, 'package.json'), JSON.stringify({ name: 'pfc-code-server-cache', private: true }, null, 2));
    // @vscode/ripgrep downloads rg from GitHub (unreachable here) unless its
    // cache already holds the tarball: put Debian's rg there.
    const rgCache = join(tmp, `vscode-ripgrep-cache-${RIPGREP_PKG_VERSION}`);
    const rgStage = join(tmp, 'rg-stage');
    mkdirSync(rgCache, { recursive: true });
    mkdirSync(rgStage);
    copyFileSync('/usr/bin/rg', join(rgStage, 'rg'));
    chmodSync(join(rgStage, 'rg'), 0o755);
    execFileSync('tar', ['-czf', join(rgCache, RIPGREP_ASSET), '-C', rgStage, 'rg']);
    const env = {
      ...process.env,
      TMPDIR: tmp,
      // code-server's postinstall refuses to run as root without this.
      npm_config_unsafe_perm: 'true',
      // node-pty's postinstall runs `npx node-gyp`; ~/.npmrc says yes=false.
      npm_config_yes: 'true',
      npm_config_fund: 'false',
      npm_config_audit: 'false',
      npm_config_update_notifier: 'false',
    };
    // The team's npm lock: parallel npm runs share the npm cache.
    const lock = hasCommand('flock') ? 'flock /tmp/pfc-npm.lock ' : '';
    sh(`${lock}npm install --no-save --foreground-scripts --prefix ${JSON.stringify(staging)} code-server@${CODE_SERVER_VERSION}`, env);
    if (!installed(staging, true)) throw new Error(`code-server ${CODE_SERVER_VERSION} did not install into ${staging}`);
    rmSync(home, { recursive: true, force: true });
    execFileSync('mv', [staging, home]);
  } finally {
    rmSync(staging, { recursive: true, force: true });
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Make sure code-server and its Debian dependencies are present; returns the launcher path. */
export function setupCodeServer() {
  ensureDebianPackages();
  const home = codeServerHome();
  if (!installed(home)) {
    console.log(`installing code-server ${CODE_SERVER_VERSION} into ${home} (about a minute, ~300 MB)`);
    installCodeServer(home);
  }
  return codeServerBin(home);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(`code-server: ${setupCodeServer()}`);
}
