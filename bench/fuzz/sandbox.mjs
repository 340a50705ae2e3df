/**
 * Did the emulator touch any file outside its own folders? Two independent
 * checks:
 *  - canaries: secret files beside the data folder (where `../` lands) must
 *    be unchanged and their content must never appear in an answer, and no
 *    new file may appear beside the data folder;
 *  - strace (when installed): every open, create, rename, unlink, mkdir … the
 *    emulator process made is listed; writes must stay inside the data
 *    folder, reads inside it or among the program's own files and the system's.
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../lib/paths.mjs';

/** Syscalls that name a file; `%file` would add stat/access lookups, which read nothing. */
export const STRACE_CALLS = 'open,openat,creat,truncate,rename,renameat,renameat2,unlink,unlinkat,mkdir,mkdirat,rmdir,link,linkat,symlink,symlinkat,chmod,fchmodat';

export function straceAvailable() {
  try {
    execFileSync('strace', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A fresh sandbox under `root`: the emulator's data folder and canaries around it. */
export function makeSandbox(root, seed) {
  const dataDir = path.join(root, 'emulator');
  const cwd = path.join(dataDir, 'cwd');
  mkdirSync(cwd, { recursive: true });
  mkdirSync(path.join(dataDir, 'tmp'), { recursive: true });
  const secret = `PFC-CANARY-${seed}-${randomBytes(8).toString('hex')}`;
  const canaries = [path.join(root, 'canary.txt'), path.join(root, 'sibling', 'canary.txt'), path.join(root, 'etc', 'passwd')];
  for (const c of canaries) {
    mkdirSync(path.dirname(c), { recursive: true });
    writeFileSync(c, `${secret}\n`);
  }
  const fingerprint = () => canaries.map((c) => (existsSync(c) ? `${c}:${statSync(c).mtimeMs}:${createHash('sha256').update(readFileSync(c)).digest('hex')}` : `${c}:missing`));
  const outside = () => listFiles(root).filter((f) => !f.startsWith(dataDir + path.sep) && f !== path.join(root, 'strace.log'));
  const before = { canaries: fingerprint(), outside: outside() };
  return {
    root,
    dataDir,
    cwd,
    secret,
    straceLog: path.join(root, 'strace.log'),
    /** Problems found by the canary check (empty when clean). */
    check() {
      const problems = [];
      const now = fingerprint();
      now.forEach((f, i) => f !== before.canaries[i] && problems.push(`canary changed: ${canaries[i]}`));
      for (const f of outside()) if (!before.outside.includes(f)) problems.push(`new file outside the data folder: ${f}`);
      return problems;
    },
  };
}

function listFiles(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => !e.isDirectory()).map((e) => path.join(e.parentPath, e.name));
}

const WRITE_FLAGS = /O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND/;
const MUTATING = new Set(['creat', 'truncate', 'rename', 'renameat', 'renameat2', 'unlink', 'unlinkat', 'mkdir', 'mkdirat', 'rmdir', 'link', 'linkat', 'symlink', 'symlinkat', 'chmod', 'fchmodat']);

/**
 * File accesses in an strace log that break the rules (`violations`), and
 * how many writes it saw inside the data folder (`writesInside`, a sign the
 * trace worked): writes outside
 * `dataDir`; reads outside `dataDir`, the program (repository, Node) and the
 * system folders. Relative paths are resolved against `cwd`.
 */
export function straceViolations(logFile, { dataDir, cwd }) {
  const nodePrefix = path.resolve(path.dirname(process.execPath), '..');
  // GLib inside sharp's prebuilt libvips probes its build prefix (/target) for charset.alias
  // once, whatever the requests: a library lookup, not a file named by a client.
  const readable = [dataDir, ROOT, nodePrefix, '/proc', '/sys', '/dev', '/etc', '/usr', '/lib', '/lib64', '/target/lib/charset.alias'];
  const writable = [dataDir, '/dev/null', '/proc/self', '/dev/shm'];
  const inside = (p, roots) => roots.some((r) => p === r || p.startsWith(r.endsWith('/') ? r : `${r}/`));
  const violations = [];
  let writesInside = 0;
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    const m = /^\d+\s+(\w+)\((.*)\)\s+=\s+(-?\d+|\?)/.exec(line);
    if (!m) continue;
    const [, call, args] = m;
    // Every quoted argument is a path (renames have two).
    const paths = [...args.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((x) => x[1].replace(/\\(.)/g, '$1'));
    const write = MUTATING.has(call) || WRITE_FLAGS.test(args);
    for (const raw of paths) {
      const p = path.resolve(cwd, raw);
      if (!inside(p, write ? writable : readable)) violations.push(`${write ? 'write' : 'read'} ${call} ${p}`);
      else if (write && inside(p, [dataDir])) writesInside++;
    }
  }
  return { violations: [...new Set(violations)], writesInside };
}
