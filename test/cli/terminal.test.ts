/**
 * What `pfc` prints on a terminal: names with control characters are escaped
 * (as `ls -b` does) so a file name cannot recolour the screen, set the window
 * title or forge lines; and a reader that goes away (`pfc … | head`) ends the
 * run quietly, cleaning up the embedded emulator's copies of the photos.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, copySamples, jsonLines, manyPhotos, runPfc, spawnPfc, until } from './helpers';

const EVIL = 'evil\x1b]0;pwned\x07\x1b[31mred\n✓ fake line\u202Egpj.jpg';

describe('pfc on a terminal', () => {
  it('escapes control characters of file names in human output; --json keeps the exact name', async () => {
    const dir = copySamples();
    mkdirSync(join(dir, 'photos/odd'));
    copyFileSync(join(dir, 'photos/objects/coffee.jpg'), join(dir, 'photos/odd', EVIL));
    const human = await runPfc(['correct', 'photos/odd'], { cwd: dir });
    expect(human.code, human.stderr).toBe(0);
    for (const text of [human.stdout, human.stderr]) {
      // Line breaks are the output's own; any other control character came from the name.
      const controls = [...text].filter((c) => c !== '\n' && (c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f || c === '\u202e'));
      expect(controls).toEqual([]);
    }
    expect(human.stdout).toContain('evil\\e]0;pwned\\x07\\e[31mred\\n✓ fake line\\u{202e}gpj.jpg →');
    // One ✓ line for the one file: the name's newline did not make a second.
    expect(human.stdout.split('\n').filter((l) => l.startsWith('✓'))).toHaveLength(1);

    const json = await runPfc(['correct', 'photos/odd', '--json', '--force'], { cwd: dir });
    const corrected = jsonLines(json.stdout).find((l) => l.type === 'corrected');
    expect(corrected?.rel).toBe(EVIL);
  });

  it('escapes them in errors too', async () => {
    const r = await runPfc(['correct', 'no-such-\x1b[2Jfolder'], { cwd: mkdtempSync(join(tmpdir(), 'pfc-term-')) });
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain('\x1b');
    expect(r.stderr).toContain('no-such-\\e[2Jfolder');
  });

  it('`pfc correct … | head -1` ends quietly: no stack trace, and the emulator’s copies are removed', async () => {
    const dir = manyPhotos(12);
    const tmp = mkdtempSync(join(tmpdir(), 'pfc-tmpdir-'));
    const run = spawnPfc(['correct', 'photos/many', '--concurrency', '1'], { cwd: dir, env: cleanEnv({ TMPDIR: tmp }) });
    await until(() => run.stdout().includes('\n'), 'the first line');
    // What head does after its first line: close the pipe.
    run.child.stdout!.destroy();
    const ended = await run.done;
    expect(ended.stderr).not.toMatch(/EPIPE|Error:|\n\s+at /);
    expect([130, 141]).toContain(ended.code);
    expect(readdirSync(tmp).filter((n) => n.startsWith('pfc-emulator-'))).toEqual([]);
  });
});
