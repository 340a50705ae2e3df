/**
 * The release's one source of truth, read from the repository itself:
 * - which packages exist: the root package.json's `workspaces`;
 * - which are published to npm: those not marked `private`;
 * - the version: every workspace package carries the same one (Changesets'
 *   `fixed` group in .changeset/config.json bumps them together);
 * - the repository, bugs and homepage addresses: the root package.json's
 *   fields, from which each package's `repository.directory` is derived.
 * `checkRelease` reports every package that disagrees, so a release cannot
 * ship two versions or a stale address.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root folder. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

/** Every workspace package: `{ dir, rel, pkg }` (dir absolute, rel from the root). */
export function workspacePackages(root = ROOT) {
  const rootPkg = readJson(join(root, 'package.json'));
  const out = [];
  for (const pattern of rootPkg.workspaces) {
    const dirs = pattern.endsWith('/*')
      ? readdirSync(join(root, pattern.slice(0, -2)), { withFileTypes: true })
          .filter((d) => d.isDirectory())
          .map((d) => join(root, pattern.slice(0, -2), d.name))
      : [join(root, pattern)];
    for (const dir of dirs) {
      if (!existsSync(join(dir, 'package.json'))) continue;
      out.push({ dir, rel: relative(root, dir).split('\\').join('/'), pkg: readJson(join(dir, 'package.json')) });
    }
  }
  return out;
}

/** The packages published to npm (not `private`), in dependency order (dependencies first). */
export function publishedPackages(root = ROOT) {
  const pubs = workspacePackages(root).filter((p) => !p.pkg.private);
  const names = new Set(pubs.map((p) => p.pkg.name));
  const ordered = [];
  const seen = new Set();
  const visit = (p) => {
    if (seen.has(p.pkg.name)) return;
    seen.add(p.pkg.name);
    for (const dep of Object.keys(p.pkg.dependencies ?? {})) {
      if (names.has(dep)) visit(pubs.find((q) => q.pkg.name === dep));
    }
    ordered.push(p);
  };
  pubs.forEach(visit);
  return ordered;
}

/** The release's metadata: the root's addresses and the version every package must carry. */
export function releaseInfo(root = ROOT) {
  const rootPkg = readJson(join(root, 'package.json'));
  const core = workspacePackages(root).find((p) => p.pkg.name === '@pfc/core');
  return { version: core.pkg.version, repository: rootPkg.repository, bugs: rootPkg.bugs, homepage: rootPkg.homepage };
}

/** What each package's repository field must be: the root's address plus its folder. */
export function expectedRepository(rel, root = ROOT) {
  const { repository } = releaseInfo(root);
  return { type: repository.type, url: repository.url, directory: rel };
}

/** Every disagreement with the one source (empty when the release is consistent). */
export function checkRelease(root = ROOT) {
  const { version, bugs } = releaseInfo(root);
  const problems = [];
  const names = new Set();
  for (const { rel, pkg } of workspacePackages(root)) {
    if (rel === 'test') continue;
    if (names.has(pkg.name)) problems.push(`${rel}: package name ${pkg.name} used twice`);
    names.add(pkg.name);
    if (pkg.version !== version) problems.push(`${rel}: version ${pkg.version}, the release is ${version}`);
    if (pkg.private && rel.startsWith('packages/')) problems.push(`${rel}: private, but every packages/* package is published`);
    const publishedOrListed = !pkg.private || rel === 'plugins/vscode';
    if (!publishedOrListed) continue;
    const want = expectedRepository(rel, root);
    if (JSON.stringify(pkg.repository) !== JSON.stringify(want)) {
      problems.push(`${rel}: repository ${JSON.stringify(pkg.repository)}, expected ${JSON.stringify(want)}`);
    }
    if (pkg.bugs !== undefined && JSON.stringify(pkg.bugs) !== JSON.stringify(bugs)) {
      problems.push(`${rel}: bugs ${JSON.stringify(pkg.bugs)}, expected the root's ${JSON.stringify(bugs)}`);
    }
  }
  return problems;
}
