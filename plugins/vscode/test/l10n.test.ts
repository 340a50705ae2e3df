/**
 * Runtime messages go through `vscode.l10n.t` and the English source bundle
 * `l10n/bundle.l10n.json` holds every one of them (VS Code loads
 * `bundle.l10n.<locale>.json` beside it for the display language).
 * (a) a scan of `src/` for literal text in user-visible places; (b) real flows
 * through the fake VS Code with a pseudo-locale bundle.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { afterEach, describe, expect, test } from 'vitest';
import { BUNDLE_PATH, bundleText, l10nCalls, sourceFiles, where } from '../scripts/l10n.mjs';
import type { LastRun } from '../src/last-run';
import { activateOnFake, emulatorForTests, photoFolder } from './helpers';

const bundle = JSON.parse(readFileSync(BUNDLE_PATH, 'utf8')) as Record<string, string>;

/** Calls whose arguments the user reads. */
const MESSAGE_CALLS = new Set(['showInformationMessage', 'showWarningMessage', 'showErrorMessage', 'setStatusBarMessage', 'report']);
/** Object properties the user reads (quick-pick items, input boxes, progress, dialogs). */
const UI_PROPERTIES = new Set(['title', 'prompt', 'placeHolder', 'label', 'description', 'detail', 'openLabel', 'message', 'tooltip']);
/** Assigned properties the user reads (status-bar item). */
const UI_ASSIGNED = new Set(['text', 'tooltip']);

/** The literal text an expression shows as is (a string, a template, a concatenation), looking through `?:`, `??` and `||`. */
function literalText(e: ts.Expression): ts.Node | undefined {
  if (ts.isParenthesizedExpression(e)) return literalText(e.expression);
  if (ts.isConditionalExpression(e)) return literalText(e.whenTrue) ?? literalText(e.whenFalse);
  if (ts.isBinaryExpression(e)) {
    const op = e.operatorToken.kind;
    if (op === ts.SyntaxKind.PlusToken || op === ts.SyntaxKind.QuestionQuestionToken || op === ts.SyntaxKind.BarBarToken) return literalText(e.left) ?? literalText(e.right);
    return undefined;
  }
  const text = ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e) ? e.text : ts.isTemplateExpression(e) ? e.getText() : undefined;
  // Letters are words a translator needs; separators and numbers alone are not.
  return text !== undefined && /\p{L}/u.test(text) ? e : undefined;
}

/** Every place in `src` where literal text would reach the user without `l10n.t`. */
function untranslated(files: ts.SourceFile[]): string[] {
  const found: string[] = [];
  const flag = (e: ts.Expression | undefined): void => {
    const lit = e && literalText(e);
    if (lit) found.push(`${where(lit)} ${lit.getText()}`);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = ts.isPropertyAccessExpression(callee) ? callee.name.text : ts.isIdentifier(callee) ? callee.text : '';
      if (MESSAGE_CALLS.has(name)) node.arguments.forEach(flag);
      // The panel's title (its first argument is an id).
      if (name === 'createWebviewPanel') flag(node.arguments[1]);
    } else if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && UI_PROPERTIES.has(node.name.text)) {
      flag(node.initializer);
    } else if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(node.left) && UI_ASSIGNED.has(node.left.name.text)) {
      flag(node.right);
    }
    ts.forEachChild(node, visit);
  };
  files.forEach(visit);
  return found;
}

describe('(a) every runtime message goes through l10n.t and is in the bundle', () => {
  test('no literal text in messages, buttons, prompts, progress, quick picks or the status bar', () => {
    expect(untranslated(sourceFiles())).toEqual([]);
  });

  test('the scan finds a literal message (it can fail)', () => {
    const file = ts.createSourceFile(join('src', 'x.ts'), "api.window.showInformationMessage(`Perfectly Clear: ${n} done`, 'Show Log'); status.text = cond ? 'Busy' : t('Idle'); api.window.setStatusBarMessage('Key saved', 10000);", ts.ScriptTarget.ES2022, true);
    expect(untranslated([file])).toHaveLength(4);
  });

  test('each l10n.t message is one string literal whose {n} placeholders match its arguments', () => {
    const calls = l10nCalls();
    expect(calls.length).toBeGreaterThan(50);
    for (const c of calls) {
      expect(c.message, `${c.at}: the message must be one string literal`).toBeTypeOf('string');
      const indexes = [...c.message!.matchAll(/\{(\d+)\}/g)].map((m) => Number(m[1]));
      const used = new Set(indexes);
      expect(c.args, `${c.at}: "${c.message}" has ${used.size} placeholders`).toBe(used.size);
      for (let i = 0; i < c.args; i++) expect(used.has(i), `${c.at}: "${c.message}" lacks {${i}}`).toBe(true);
    }
  });

  test('bundle.l10n.json holds every message (regenerate with node scripts/l10n.mjs)', () => {
    for (const c of l10nCalls()) expect(bundle[c.message!], `${c.at}: "${c.message}" missing from l10n/bundle.l10n.json`).toBe(c.message);
    expect(readFileSync(BUNDLE_PATH, 'utf8')).toBe(bundleText());
  });

  test('package.json points VS Code at the bundle folder', () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { l10n?: string };
    expect(pkg.l10n).toBe('./l10n');
  });
});

/** A pseudo-locale: every message wrapped in ⟦ ⟧, placeholders kept, as a translator's bundle would. */
const PSEUDO = Object.fromEntries(Object.keys(bundle).map((k) => [k, `⟦${k}⟧`]));

describe('(b) a pseudo-locale bundle reaches the user, arguments filled in', () => {
  const emu = emulatorForTests();
  let folder: ReturnType<typeof photoFolder> | undefined;
  let empty: string | undefined;
  afterEach(() => {
    folder?.cleanup();
    if (empty) rmSync(empty, { recursive: true, force: true });
    folder = undefined;
    empty = undefined;
  });

  test('nothing to correct: the translated message names what was left out', async () => {
    empty = mkdtempSync(join(tmpdir(), 'pfc-vscode-l10n-'));
    mkdirSync(join(empty, 'docs'));
    writeFileSync(join(empty, 'docs', 'notes.txt'), 'not an image');
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web }, l10nBundle: PSEUDO });
    expect(await fake.run('pfc.correctFolder', fake.uri(empty))).toBeUndefined();
    const shown = fake.shown.at(-1)!;
    expect(shown.text).toMatch(/^⟦Perfectly Clear: no image or video to correct \(1 path: .+\)\.⟧$/);
    // The scan's progress was translated too, with its count.
    expect(fake.progress.map((p) => p.message)).toContain('⟦Scanning… 1 files⟧');
  });

  test('a run: translated picker, summary with its counts, and translated buttons that still work', async () => {
    folder = photoFolder();
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web }, l10nBundle: PSEUDO });
    fake.pick = () => 'Pro';
    fake.answers.push({ match: /Corrected/, answer: '⟦Show Report⟧' });
    const last = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
    expect(last.summary.corrected).toBe(5);

    expect(fake.quickPicks[0]![0]!.label).toBe('⟦Built-in AI preset groups⟧');
    const summary = fake.shown.at(-1)!;
    expect(summary.text).toMatch(/^⟦Perfectly Clear: ⟦Corrected 5 files in \d+\.\d s⟧\.⟧$/);
    expect(summary.actions).toEqual(['⟦Open Output Folder⟧', '⟦Show Report⟧']);
    // The translated "Show Report" the user clicked opens the report, itself translated.
    await expect.poll(() => fake.webviews.length).toBe(1);
    expect(fake.webviews[0]!.title).toBe('⟦Perfectly Clear Report⟧');
    expect(fake.webviews[0]!.html).toMatch(/<p id="summary">⟦5 corrected, 0 up to date, 0 failed, 0 not finished, 0 left out — \d+\.\d s⟧<\/p>/);
  });
});
