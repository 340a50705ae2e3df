/** What `pfc restore --help` promises, through the built `pfc`. */
import { describe, expect, it } from 'vitest';
import { runPfc } from '../../../test/cli/helpers';

describe('pfc restore --help', () => {
  it.each([[['restore', '--help']], [['help', 'restore']]])('%j says a restored file gets its original\'s modification time, mode and owner back', async (args) => {
    const run = await runPfc(args);
    expect(run.code, run.stderr).toBe(0);
    // Read as a person does, across the line breaks.
    expect(run.stdout.replace(/\s+/g, ' ')).toMatch(/its bytes, modification time, mode and owner/);
  });
});
