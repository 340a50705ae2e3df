/**
 * The engine's messages reach VS Code's Output channel, summary and report, whose user can type no flag: a flag
 * is named only through the host's terms (`src/host-terms.ts`, the one module that spells the CLI's). This reads
 * every string literal of `src/` (comments left aside) and fails on a literal `--flag` anywhere else, so a new
 * message cannot slip one in.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../src');

/** The module whose strings are the CLI's flags. */
const TERMS_MODULE = 'host-terms.ts';

/**
 * Messages of options only the CLI has, which no other host can reach: `--report` (VS Code shows its report in a
 * panel, written nowhere the user names), direct file access to a container, and the key and addresses of a backend
 * chosen on the command line (VS Code asks for its key before opening one, and its address settings cannot be
 * empty). Each is one exact string literal; a new message is not among them.
 */
const CLI_ONLY: Readonly<Record<string, readonly string[]>> = {
  'report-path.ts': [
    '`--report must name an .html file (got ${path}); the report is never written over other files`',
    '`--report ${path} is not a file`',
    '`--report would overwrite ${dest}, which is not a report pfc wrote; choose a new file name`',
  ],
  'report-store.ts': ['`--report ${given} keeps its larger data in ${dir}, which exists and is not a folder pfc made; choose another report name`'],
  'backends.ts': [
    "`direct file access (--container-input-dir, --container-output-dir) works only with the colour-correction container alone (--container-url, without --bgr-url), not with the ${bgrUrls.length > 0 && choice === 'container' ? 'container+bgr' : choice} backend`",
    "'direct file access (--container-input-dir, --container-output-dir) works with one colour-correction container, not several --container-url'",
    "'the web backend needs an API key: set PFC_API_KEY or pass --api-key'",
    "'the bgr backend needs --bgr-url (or PFC_BGR_URL)'",
    "'the container backend needs --container-url (or PFC_CONTAINER_URL)'",
    "'--container-input-dir'",
    "'--container-output-dir'",
    '`--container-input-dir and --container-output-dir must be two folders (the container\'s /input and /output), got ${inputDir} twice`',
  ],
};

/** A flag: two dashes and a letter, not a CSS custom property (`--bg:`, `var(--bg)`) of the report's style sheet. */
const FLAG = /(?<!var\()--[a-z][a-z-]*(?![a-z-]*\s*:)/;

/**
 * The string literals of a TypeScript source, comments skipped: quoted strings, and template literals whole
 * (their `${…}` parts included, which may hold strings of their own).
 */
function stringLiterals(source: string): string[] {
  const found: string[] = [];
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    const next = source[i + 1];
    if (c === '/' && next === '/') i = lineEnd(source, i);
    else if (c === '/' && next === '*') i = source.indexOf('*/', i + 2) + 1;
    else if (c === '/' && startsRegex(source, i)) i = regexEnd(source, i);
    else if (c === "'" || c === '"' || c === '`') {
      const end = literalEnd(source, i);
      found.push(source.slice(i, end + 1));
      i = end;
    }
  }
  return found;
}

/** Whether the `/` at `at` opens a regular expression rather than dividing: what comes before it cannot end a value. */
function startsRegex(source: string, at: number): boolean {
  const before = source.slice(Math.max(0, at - 10), at).trimEnd();
  return before === '' || /[(,=:[!&|?{};+\-*%<>~^]$/.test(before) || /\b(return|typeof)$/.test(before);
}

/** Where the regular expression opened at `start` closes (a `/` in a character class does not close it). */
function regexEnd(source: string, start: number): number {
  let inClass = false;
  for (let i = start + 1; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') i++;
    else if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    else if (c === '/' && !inClass) return i;
    else if (c === '\n') return i;
  }
  return source.length;
}

function lineEnd(source: string, from: number): number {
  const end = source.indexOf('\n', from);
  return end === -1 ? source.length : end;
}

/** Where the literal opened at `start` closes; a template's `${…}` may nest braces and literals. */
function literalEnd(source: string, start: number): number {
  const quote = source[start]!;
  for (let i = start + 1; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') i++;
    else if (c === quote) return i;
    else if (quote === '`' && c === '$' && source[i + 1] === '{') i = expressionEnd(source, i + 2);
  }
  return source.length;
}

function expressionEnd(source: string, from: number): number {
  let depth = 1;
  for (let i = from; i < source.length; i++) {
    const c = source[i]!;
    if (c === "'" || c === '"' || c === '`') i = literalEnd(source, i);
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  return source.length;
}

/** Every string literal of `src/` naming a flag outside the terms module and the CLI-only messages, as `file: literal`. */
function flagsInMessages(): string[] {
  const hits: string[] = [];
  for (const file of readdirSync(SRC).filter((f) => f.endsWith('.ts') && f !== TERMS_MODULE)) {
    const allowed = CLI_ONLY[file] ?? [];
    for (const literal of stringLiterals(readFileSync(join(SRC, file), 'utf8'))) {
      if (FLAG.test(literal) && !allowed.includes(literal)) hits.push(`${file}: ${literal}`);
    }
  }
  return hits;
}

describe('flags in the engine\'s messages', () => {
  it('are named only through the host\'s terms', () => {
    expect(flagsInMessages()).toEqual([]);
  });

  it('the CLI-only messages let through are still there, each word for word', () => {
    for (const [file, literals] of Object.entries(CLI_ONLY)) {
      const found = stringLiterals(readFileSync(join(SRC, file), 'utf8'));
      for (const literal of literals) expect(found, file).toContain(literal);
    }
  });

  it('finds a flag in a quoted string or a template, and not in a comment or a style sheet', () => {
    const source = [
      "// use --overwrite",
      "/* --in-place */",
      "const a = `x ${b ? 'y' : `--out ${c}`} z`;",
      "const d = ':root { --bg: #fff; } body { color: var(--fg); }';",
      "const e = \"pass --wait\";",
      "const f = s.replace(/[&<>\"']/g, (c) => c) + '--x'.length / 2;",
    ].join('\n');
    expect(stringLiterals(source).filter((s) => FLAG.test(s))).toEqual(["`x ${b ? 'y' : `--out ${c}`} z`", '"pass --wait"', "'--x'"]);
  });
});
