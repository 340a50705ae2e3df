/**
 * The English source bundle `l10n/bundle.l10n.json`, in the format
 * `@vscode/l10n-dev export` writes (message → message), read from `src/`.
 *
 * Why not `l10n-dev` itself: it finds `vscode.l10n.t(...)` by following the
 * `vscode` import, and every module here except extension.ts reaches the API
 * through the `VscodeApi` seam (`api.l10n.t`), so it would find nothing.
 * The convention this script (and test/l10n.test.ts) relies on:
 *   - a message is `<anything>.l10n.t('literal', ...args)` or `t('literal', ...args)`
 *     where `t` comes from `const { t } = api.l10n` / a `{ t }: VscodeL10n` parameter;
 *   - the first argument is one plain string literal (no template, no `+`), its
 *     `{0}`, `{1}`… filled by VS Code from the arguments.
 *
 * Usage: `node scripts/l10n.mjs` writes the bundle; `--check` fails when it is out of date.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const PLUGIN_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
export const BUNDLE_PATH = join(PLUGIN_DIR, 'l10n', 'bundle.l10n.json');

/** The extension's source files, parsed. */
export function sourceFiles(srcDir = join(PLUGIN_DIR, 'src')) {
  return readdirSync(srcDir)
    .filter((f) => f.endsWith('.ts'))
    .sort()
    .map((f) => {
      const path = join(srcDir, f);
      return ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2022, true);
    });
}

/** Whether `call` is a translation call (`….l10n.t(…)` or `t(…)`). */
export function isL10nCall(call) {
  const callee = call.expression;
  if (ts.isIdentifier(callee)) return callee.text === 't';
  return ts.isPropertyAccessExpression(callee) && callee.name.text === 't' && /(^|\.)l10n$/.test(callee.expression.getText());
}

function walk(node, visit) {
  visit(node);
  ts.forEachChild(node, (child) => walk(child, visit));
}

/** Where a source node is, for messages: `src/run.ts:12`. */
export function where(node) {
  const file = node.getSourceFile();
  return `${relative(PLUGIN_DIR, file.fileName)}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
}

/**
 * Every translation call: its message (undefined when the first argument is
 * not one plain string literal) and the number of arguments after it.
 */
export function l10nCalls(files = sourceFiles()) {
  const calls = [];
  for (const file of files) {
    walk(file, (node) => {
      if (!ts.isCallExpression(node) || !isL10nCall(node)) return;
      const first = node.arguments[0];
      const message = first && (ts.isStringLiteral(first) || ts.isNoSubstitutionTemplateLiteral(first)) ? first.text : undefined;
      calls.push({ message, args: node.arguments.length - 1, at: where(node) });
    });
  }
  return calls;
}

/** The bundle's content: each message once, in source order. */
export function bundleOf(calls = l10nCalls()) {
  const bundle = {};
  for (const c of calls) if (c.message !== undefined) bundle[c.message] = c.message;
  return bundle;
}

/** The bundle file's text (tab-indented as l10n-dev writes it). */
export function bundleText(bundle = bundleOf()) {
  return `${JSON.stringify(bundle, null, '\t')}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = bundleText();
  if (process.argv.includes('--check')) {
    if (readFileSync(BUNDLE_PATH, 'utf8') !== text) {
      console.error(`${relative(process.cwd(), BUNDLE_PATH)} is out of date: run node scripts/l10n.mjs`);
      process.exit(1);
    }
  } else {
    writeFileSync(BUNDLE_PATH, text);
    console.log(`wrote ${Object.keys(JSON.parse(text)).length} messages to ${relative(process.cwd(), BUNDLE_PATH)}`);
  }
}
