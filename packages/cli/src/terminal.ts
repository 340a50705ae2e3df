/**
 * Text from outside (file names, service messages) made safe to print on a
 * terminal: control characters are shown as backslash escapes, as `ls -b`
 * does, so a name cannot move the cursor, change colours, set the window
 * title or forge extra lines. `--json` output needs none of this (JSON
 * escapes control characters itself).
 */

/** Bidirectional-text controls: they reorder what follows, so `gpj.exe` can look like `exe.jpg`. */
const BIDI = new Set([0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]);
const NAMED: Record<number, string> = { 0x09: '\\t', 0x0a: '\\n', 0x0d: '\\r', 0x1b: '\\e' };

/** Whether a character code is a C0/C1 control, DEL, or a bidi control. */
export function isControlCode(code: number): boolean {
  return code < 0x20 || (code >= 0x7f && code <= 0x9f) || BIDI.has(code);
}

/**
 * `text` with every control character escaped (`\n`, `\e`, `\x07`, `\u{202e}`).
 * `keepNewlines` leaves line breaks alone, for messages that are several lines by design.
 *
 * @example
 * escapeControls('a\x1b[31mb') // 'a\\e[31mb'
 */
export function escapeControls(text: string, options: { keepNewlines?: boolean } = {}): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (!isControlCode(code) || (options.keepNewlines && code === 0x0a)) out += ch;
    else out += NAMED[code] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`);
  }
  return out;
}

/** Whether `text` holds any control character. */
export function hasControls(text: string): boolean {
  for (const ch of text) if (isControlCode(ch.codePointAt(0)!)) return true;
  return false;
}
