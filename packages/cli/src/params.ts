/** `--preset` and `--param key=value` → validated Web API parameters, before anything is started or sent. */
import { type PfcParams, validatePfcParams } from '@pfc/core';
import { UsageError } from './io';

/** Set per file by pfc itself, so not accepted from the command line. */
const SET_BY_PFC = new Set(['fileKey', 'fileType']);

/** Parse and validate. Throws `UsageError` naming each bad parameter and its allowed values. */
export function paramsFromArgs(preset: string | undefined, pairs: readonly string[]): { params: PfcParams; warnings: string[] } {
  const raw: Record<string, string> = {};
  const problems: string[] = [];
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) {
      problems.push(`--param takes key=value (got ${JSON.stringify(pair)})`);
      continue;
    }
    const key = pair.slice(0, eq).trim();
    if (SET_BY_PFC.has(key)) problems.push(`${key} is set per file by pfc; it cannot be given`);
    else if (key in raw) problems.push(`--param ${key} is given twice`);
    else raw[key] = pair.slice(eq + 1);
  }
  if (preset !== undefined) {
    if ('preset' in raw) problems.push('preset is given both as --preset and as --param preset=…');
    else raw.preset = preset;
  }
  const check = validatePfcParams(raw, { requireFileKey: false });
  problems.push(...check.errors.map((e) => e.message));
  if (problems.length > 0) throw new UsageError(`invalid parameters:\n  ${problems.join('\n  ')}`);
  return { params: check.params, warnings: check.warnings };
}
