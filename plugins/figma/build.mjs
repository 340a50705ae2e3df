// Builds the two files Figma loads: dist/code.js (main thread, one IIFE) and
// dist/ui.html (the UI document with its script and CSS inlined, because
// Figma loads `ui` as a single HTML string with no way to fetch siblings).
import { mkdirSync, readFileSync, writeFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { mainBuildOptions, uiBuildOptions } from './build-options.mjs';

const root = dirname(fileURLToPath(import.meta.url));
const dist = join(root, 'dist');
mkdirSync(dist, { recursive: true });

const [code, ui] = await Promise.all([build(mainBuildOptions(root)), build(uiBuildOptions(root))]);

function writeAtomic(path, text) {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}

const codeText = code.outputFiles[0].text;
// A literal "</script" inside the inlined script would end the element early.
const uiScript = ui.outputFiles[0].text.replace(/<\/script/gi, '<\\/script');
const css = readFileSync(join(root, 'src/ui/ui.css'), 'utf8');
const template = readFileSync(join(root, 'src/ui/ui.html'), 'utf8');
if (!template.includes('/*__CSS__*/') || !template.includes('/*__SCRIPT__*/')) {
  throw new Error('src/ui/ui.html must contain the /*__CSS__*/ and /*__SCRIPT__*/ placeholders');
}
const html = template.replace('/*__CSS__*/', () => css).replace('/*__SCRIPT__*/', () => uiScript);

writeAtomic(join(dist, 'code.js'), codeText);
writeAtomic(join(dist, 'ui.html'), html);
console.log(`dist/code.js ${codeText.length} B, dist/ui.html ${html.length} B`);
