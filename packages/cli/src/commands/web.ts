/** The Web API client for commands that talk to an account (presets, status). */
import { BatchUsageError, openBackend, type OpenedBackend } from '@pfc/batch';
import type { WebApiClient } from '@pfc/core';
import type { CliIo } from '../io';
import { UsageError } from '../io';
import { API_KEY_FLAGS, type ApiKeyFlags, readApiKey } from '../secrets';

export const WEB_FLAGS = {
  ...API_KEY_FLAGS,
  'base-url': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Open the Web API from the key flags or `PFC_API_KEY` (see secrets.ts) and `--base-url`/`PFC_BASE_URL`. */
export async function openWeb(io: CliIo, v: ApiKeyFlags & { 'base-url'?: string }, command: string): Promise<{ web: WebApiClient; opened: OpenedBackend }> {
  const apiKey = await readApiKey(v, io);
  if (!apiKey) throw new UsageError(`pfc ${command} needs a Web API key: set PFC_API_KEY, or pass --api-key-file FILE or --api-key-stdin (and --base-url for an address other than the hosted service)`);
  const opened = await openBackend({ backend: 'web', apiKey, baseURL: v['base-url'] ?? io.env.PFC_BASE_URL }).catch((err: unknown) => {
    // An address the client refuses is the user's to fix, as in `pfc correct`.
    throw err instanceof BatchUsageError ? new UsageError(err.message) : err;
  });
  return { web: opened.web!, opened };
}
