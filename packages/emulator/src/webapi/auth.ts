/**
 * `X-API-KEY` checking. Keys are compared as SHA-256 digests in constant
 * time, and only digests are kept beside data (preset ownership); a key is
 * never logged or echoed.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { HttpError } from '../http/respond';

const digest = (key: string): Buffer => createHash('sha256').update(key, 'utf8').digest();

export class KeyCheck {
  private readonly accepted: Buffer[];

  /** With no keys, any non-empty key is accepted (the documented default of the emulator). */
  constructor(keys: readonly string[]) {
    this.accepted = keys.map(digest);
  }

  /** Whether specific keys were configured (otherwise any non-empty key is accepted). */
  get configured(): boolean {
    return this.accepted.length > 0;
  }

  /** Returns the caller's account id (hex digest of its key); throws 401 when the key is missing or wrong. */
  check(req: IncomingMessage): string {
    const raw = req.headers['x-api-key'];
    const key = (Array.isArray(raw) ? raw[0] : raw)?.trim() ?? '';
    if (key === '') throw new HttpError(401, 'missing API key: send it in the X-API-KEY header');
    const d = digest(key);
    if (this.accepted.length > 0 && !this.accepted.some((a) => timingSafeEqual(a, d))) throw new HttpError(401, 'invalid API key');
    return d.toString('hex');
  }
}
