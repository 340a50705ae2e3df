/** Content hashes for the manifest: SHA-256, streamed (memory does not grow with file size). */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { openInput } from '@pfc/node-io';

/** `sha256:<hex>` of a file's bytes; throws `NotRegularFileError` for a pipe or device (never read). */
export async function hashFile(path: string, signal?: AbortSignal): Promise<string> {
  const h = createHash('sha256');
  // The stream closes the handle at its end, on an error and on an abort.
  for await (const chunk of createReadStream(path, { fd: await openInput(path), signal })) h.update(chunk as Buffer);
  return `sha256:${h.digest('hex')}`;
}

/** JSON with object keys sorted, so equal values give equal text. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o).filter((k) => o[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${stableJson(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** `sha256:<hex>` of a value's stable JSON. */
export function hashValue(value: unknown): string {
  return `sha256:${createHash('sha256').update(stableJson(value)).digest('hex')}`;
}
