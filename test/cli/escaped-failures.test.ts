/**
 * A failure's reason can carry a file name (here: the user's file a result
 * would replace). Printed for a person, its control characters are escaped on
 * the file's ✗ line as in the summary, so a name cannot recolour the terminal
 * or forge lines; `--json` keeps the exact text.
 */
import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonLines, runPfc, SAMPLES } from './helpers';

const NAME = 'evil\x1b[31mred\n✓ fake';

describe('pfc correct, a failure whose reason names a file with control characters', () => {
  it('escapes them on the ✗ line and in the summary; --json keeps them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pfc-escaped-'));
    mkdirSync(join(dir, 'in'));
    copyFileSync(join(SAMPLES, 'objects/coffee.jpg'), join(dir, 'in', `${NAME}.jpg`));
    // The user's own file where the suffix result would go: the photo is refused, the reason naming that file.
    copyFileSync(join(SAMPLES, 'outdoors/rocket.jpg'), join(dir, 'in', `${NAME}_pfc.jpg`));
    const human = await runPfc(['correct', join(dir, 'in', `${NAME}.jpg`), '--suffix', '_pfc'], { cwd: dir });
    expect(human.code, human.stderr).toBe(1);
    for (const text of [human.stdout, human.stderr]) {
      const controls = [...text].filter((c) => c !== '\n' && (c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f));
      expect(controls).toEqual([]);
    }
    const failedLine = human.stdout.split('\n').find((l) => l.startsWith('✗'));
    expect(failedLine).toContain('would overwrite a file pfc did not write: ');
    expect(failedLine).toContain('evil\\e[31mred\\n✓ fake_pfc.jpg');
    // One ✓-looking line would be forged by the raw newline; there is none.
    expect(human.stdout.split('\n').filter((l) => l.startsWith('✓'))).toEqual([]);

    const json = await runPfc(['correct', join(dir, 'in', `${NAME}.jpg`), '--suffix', '_pfc', '--json'], { cwd: dir });
    const failed = jsonLines(json.stdout).find((l) => l.type === 'failed');
    expect(String(failed?.error)).toContain(`${NAME}_pfc.jpg`);
  });
});
