/**
 * Hosts: what each host loads — bundle sizes (raw and gzip) from the builds
 * (`npm run bench` builds first) —, the release's artifacts (every file
 * `npm run package` made, from its artifacts/release.json), and the VS Code
 * activation time that the real VS Code test (`npm run test:e2e`) writes to
 * bench-results/vscode-extension.json.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { RESULTS_DIR, ROOT } from '../lib/paths.mjs';

const KB = 1e3;

/** Size of a file, or the summed size of the files under a folder. */
function sizeOf(p) {
  const st = statSync(p);
  if (st.isFile()) return { raw: st.size, gzip: gzipSync(readFileSync(p)).length };
  let raw = 0;
  let gzip = 0;
  for (const e of readdirSync(p, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const s = sizeOf(path.join(e.parentPath, e.name));
    raw += s.raw;
    gzip += s.gzip;
  }
  return { raw, gzip };
}

const ARTIFACTS = [
  { name: 'VS Code extension bundle (dist/extension.js)', file: 'plugins/vscode/dist/extension.js' },
  { name: 'VS Code package (.vsix)', file: 'plugins/vscode/dist/pfc-vscode.vsix', packed: true },
  { name: 'Figma main thread (dist/code.js)', file: 'plugins/figma/dist/code.js' },
  { name: 'Figma UI (dist/ui.html, script inlined)', file: 'plugins/figma/dist/ui.html' },
  { name: 'Photoshop panel (dist/, all files)', file: 'plugins/photoshop/dist' },
  { name: 'Photoshop package (.ccx)', dir: 'plugins/photoshop/ccx', ext: '.ccx', packed: true },
];

/** What `npm run package` wrote to artifacts/release.json (one figure per artifact), or a note that it has not run. */
function releaseArtifacts() {
  const file = path.join(ROOT, 'artifacts', 'release.json');
  if (!existsSync(file)) {
    return { figures: [{ name: 'Release artifacts', value: 'not packaged', note: 'run npm run package (writes artifacts/release.json)' }] };
  }
  const release = JSON.parse(readFileSync(file, 'utf8'));
  const figures = release.artifacts.map((a) => ({
    name: `Release ${release.version}: ${a.path}`,
    value: +(a.bytes / KB).toFixed(1),
    unit: 'KB',
    note: a.kind === 'folder' ? `folder, ${a.files} files` : `sha256 ${a.sha256.slice(0, 12)}…`,
  }));
  return { figures, release };
}

function resolveArtifact(a) {
  if (a.file) return path.join(ROOT, a.file);
  const dir = path.join(ROOT, a.dir);
  const hit = existsSync(dir) ? readdirSync(dir).find((f) => f.endsWith(a.ext)) : undefined;
  return hit ? path.join(dir, hit) : path.join(dir, `*${a.ext}`);
}

export default {
  name: 'hosts',
  area: 'Hosts',
  title: 'Hosts: bundle sizes, release artifacts and VS Code activation',
  async run({ log }) {
    const figures = [];
    const sizes = {};
    for (const a of ARTIFACTS) {
      const p = resolveArtifact(a);
      if (!existsSync(p)) {
        figures.push({ name: a.name, value: 'missing', note: `${path.relative(ROOT, p)} not built` });
        continue;
      }
      const s = sizeOf(p);
      sizes[path.relative(ROOT, p)] = s;
      // A zip is already compressed: its gzip figure says nothing.
      figures.push({ name: a.name, value: +(s.raw / KB).toFixed(1), unit: 'KB', note: a.packed ? 'compressed package' : `${(s.gzip / KB).toFixed(1)} KB gzip` });
    }

    const packaged = releaseArtifacts();
    figures.push(...packaged.figures);

    const file = path.join(RESULTS_DIR, 'vscode-extension.json');
    let vscode;
    if (existsSync(file)) {
      vscode = JSON.parse(readFileSync(file, 'utf8'));
      figures.push({ name: 'VS Code activation (real VS Code)', value: vscode.activationMs, unit: 'ms', note: `measured by npm run test:e2e at ${vscode.measuredAt}` });
      if (vscode.firstCommandToPickerMs !== undefined) {
        figures.push({ name: 'VS Code: first command to preset picker', value: vscode.firstCommandToPickerMs, unit: 'ms', note: 'includes activation and the UI round trip in code-server + Chromium' });
      }
    } else {
      figures.push({ name: 'VS Code activation (real VS Code)', value: 'not measured', note: 'run npm run test:e2e (writes bench-results/vscode-extension.json)' });
    }
    log(figures.map((f) => `${f.name}: ${f.value}${f.unit ? ` ${f.unit}` : ''}`).join('; '));
    return {
      figures,
      data: { sizes, release: packaged.release, vscode },
      notes: ['Sizes are of the builds in the work tree (npm run bench runs npm run build first). KB = 1000 bytes.'],
    };
  },
};
