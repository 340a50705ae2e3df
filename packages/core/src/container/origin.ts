/**
 * The container builds `corrected_url` from its `PFC_SITE_URL`, whose default
 * (`http://localhost`) is wrong whenever the container runs elsewhere or
 * behind a published port. The client can point the address back at the
 * origin (and path prefix) it reached the container at.
 */
import { parseUrl } from '../address';

export interface OriginRewrite {
  /** The address to download from. */
  url: string;
  /** Whether it differs from what the container said. */
  rewritten: boolean;
}

/**
 * `correctedUrl` moved onto `baseURL` when their origins differ: the part from
 * the last `/output/` segment on is appended to the base address (so a reverse
 * proxy's path prefix is kept); without such a segment only the origin changes.
 */
export function rewriteOrigin(correctedUrl: string, baseURL: string): OriginRewrite {
  const corrected = parseUrl(correctedUrl);
  const base = parseUrl(baseURL);
  if (corrected.origin === base.origin) return { url: corrected.href, rewritten: false };
  const at = corrected.pathname.lastIndexOf('/output/');
  const path = at >= 0 ? base.pathname.replace(/\/+$/, '') + corrected.pathname.slice(at) : corrected.pathname;
  const target = parseUrl(base.origin + path + corrected.search).href;
  return { url: target, rewritten: target !== corrected.href };
}
