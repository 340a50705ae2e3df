/**
 * Pre-signed addresses: an HMAC-SHA256 over the purpose, the id, the expiry and
 * the `Content-Type` the PUT must carry (empty: none), with a secret drawn per
 * emulator instance (or given: `EmulatorOptions.signingSecret`) — as object storage signs a PUT (AWS Signature V2 query
 * authentication puts `Content-Type` into the string to sign, so a PUT with
 * another or an extra one no longer matches). Authorisation lives in the
 * address, so the PUT needs no key (and an extra key header is harmless).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export type SignedPurpose = 'file' | 'preset';

/** What a signature check found. */
export type SignatureVerdict = 'valid' | 'mismatch' | 'expired';

export class UrlSigner {
  private readonly secret: Buffer;

  constructor(
    private readonly now: () => number,
    secret?: string,
  ) {
    this.secret = secret ? Buffer.from(secret, 'utf8') : randomBytes(32);
  }

  /** Query string `expires=<unix s>&signature=<base64url>` for a purpose, an id and the Content-Type the PUT must send. */
  sign(purpose: SignedPurpose, id: string, ttlSeconds: number, contentType = ''): string {
    const expires = Math.floor(this.now() / 1000) + Math.max(1, Math.round(ttlSeconds));
    return new URLSearchParams({ expires: String(expires), signature: this.mac(purpose, id, expires, contentType) }).toString();
  }

  /**
   * `mismatch` when the address was not signed here for this purpose, id and
   * Content-Type; `expired` when it was, but its time is over.
   */
  verify(purpose: SignedPurpose, id: string, query: URLSearchParams, contentType = ''): SignatureVerdict {
    const expires = Number(query.get('expires'));
    const given = Buffer.from(query.get('signature') ?? '', 'utf8');
    const expected = Buffer.from(Number.isSafeInteger(expires) ? this.mac(purpose, id, expires, contentType) : '', 'utf8');
    if (given.length === 0 || given.length !== expected.length || !timingSafeEqual(given, expected)) return 'mismatch';
    return expires * 1000 < this.now() ? 'expired' : 'valid';
  }

  private mac(purpose: SignedPurpose, id: string, expires: number, contentType: string): string {
    return createHmac('sha256', this.secret).update(`${purpose}\n${id}\n${expires}\n${contentType}`).digest('base64url');
  }
}
