/**
 * Checks made after planning and before the first upload, so a run that
 * cannot succeed costs nothing: a `--preset` name exists (built in, or a
 * custom preset of the account). Whether the results can be written is
 * @pfc/batch's `checkOutputWritable`, which every host runs.
 */
import { type OpenedBackend } from '@pfc/batch';
import { BUILT_IN_PRESETS } from '@pfc/core';
import { UsageError } from './io';

/**
 * `--preset NAME` names a built-in preset group, `none`, or a custom preset of
 * the account (Web API and emulator; a container's presets are files it alone
 * can see, so there the container itself answers). Names compare exactly, as
 * the service does; a case-only difference is suggested.
 * @throws UsageError listing what exists.
 */
export async function checkPresetExists(preset: string | undefined, opened: OpenedBackend): Promise<void> {
  if (preset === undefined || preset === 'none' || (BUILT_IN_PRESETS as readonly string[]).includes(preset) || !opened.web) return;
  const custom: string[] = [];
  for await (const p of opened.web.presets.list()) {
    if (p.name === preset) return;
    custom.push(p.name);
  }
  const near = [...BUILT_IN_PRESETS, 'none', ...custom].find((n) => n.toLowerCase() === preset.toLowerCase());
  const known = [...BUILT_IN_PRESETS.map((n) => JSON.stringify(n)), '"none"', ...(custom.length ? [`custom: ${custom.map((n) => JSON.stringify(n)).join(', ')}`] : ['no custom presets'])];
  throw new UsageError(`--preset ${JSON.stringify(preset)} is neither a built-in preset nor a custom preset of this account${near ? ` (did you mean ${JSON.stringify(near)}?)` : ''}; presets: ${known.join(', ')} (see: pfc presets list)`);
}
