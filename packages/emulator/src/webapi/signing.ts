/**
 * Pre-signed addresses: an HMAC-SHA256 over the purpose, the id and the expiry,
 * with a secret drawn per emulator instance. Authorisation lives in the
 * address, so the PUT needs no key (and an extra key header is harmless).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { HttpError } from '../http/respond';

export type SignedPurpose = 'file' | 'preset';

export class UrlSigner {
  private readonly secret = randomBytes(32);

  constructor(private readonly now: () => number) {}

  /** Query string `expires=<unix s>&signature=<base64url>` for a purpose and id. */
  sign(purpose: SignedPurpose, id: string, ttlSeconds: number): string {
    const expires = Math.floor(this.now() / 1000) + Math.max(1, Math.round(ttlSeconds));
    return new URLSearchParams({ expires: String(expires), signature: this.mac(purpose, id, expires) }).toString();
  }

  /** Throws 403 when the address was not signed here for this purpose and id, or has expired. */
  verify(purpose: SignedPurpose, id: string, query: URLSearchParams): void {
    const expires = Number(query.get('expires'));
    const given = Buffer.from(query.get('signature') ?? '', 'utf8');
    const expected = Buffer.from(Number.isSafeInteger(expires) ? this.mac(purpose, id, expires) : '', 'utf8');
    if (given.length === 0 || given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new HttpError(403, 'the upload address is not validly signed; request a new one');
    }
    if (expires * 1000 < this.now()) throw new HttpError(403, 'the upload address has expired; request a new one');
  }

  private mac(purpose: SignedPurpose, id: string, expires: number): string {
    return createHmac('sha256', this.secret).update(`${purpose}\n${id}\n${expires}`).digest('base64url');
  }
}
