/**
 * The engine's reasons name this extension's settings, never a CLI flag its user cannot type: a file the
 * extension did not write where a result goes is left as is, and the Output channel, the results and the report
 * say what the user can do here (move or rename it), with no word of `--overwrite`.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { LastRun } from '../src/last-run';
import { activateOnFake, emulatorForTests, photoFolder, resultsIn } from './helpers';

const emu = emulatorForTests();
let folder: ReturnType<typeof photoFolder>;

afterEach(() => folder?.cleanup());

/** The extension's advice for a file it did not write; the CLI would say `use --overwrite to replace it`. */
const ADVICE = 'move or rename it, then run again';

describe('a file the extension did not write at a result\'s path', () => {
  test('is left as is, reported in the Output channel, the results and the report with the extension\'s advice and no flag', async () => {
    folder = photoFolder();
    const theirs = join(folder.photos, 'corrected', 'objects', 'coffee.jpg');
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web } });
    mkdirSync(dirname(theirs), { recursive: true });
    writeFileSync(theirs, 'the user\'s own file');

    const last = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
    expect(last.summary).toMatchObject({ corrected: 4, failed: 1, refused: 1 });
    expect(readFileSync(theirs, 'utf8')).toBe('the user\'s own file');
    const refused = (await resultsIn(last)).find((r) => r.status === 'failed')!;
    expect(refused).toMatchObject({ rel: 'objects/coffee.jpg', errorName: 'OutputExistsError' });
    expect(refused.error).toBe(`would overwrite a file pfc did not write: ${theirs}; ${ADVICE}`);

    const logged = fake.output.filter((line) => line.includes(theirs));
    expect(logged).toEqual([expect.stringContaining(ADVICE)]);
    expect(logged.join('\n')).not.toMatch(/--[a-z]/);

    await fake.run('pfc.showReport');
    const html = fake.webviews.at(-1)!.html;
    expect(html).toContain(ADVICE);
    expect(html).not.toContain('--overwrite');
  });
});
