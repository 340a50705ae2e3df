/**
 * The API key goes in a header of every request to the base address (`X-API-KEY`), so a base address of plain
 * `http://` on the internet would carry it unencrypted, readable by anyone on the way: usually a typo for
 * `https://`. Plain http is taken for this computer and the local network only — where the emulator or a
 * self-hosted gateway runs —, told by the address alone (no name is looked up).
 */
import type { HttpUrl } from '../address';

/** Names that never leave the local network (RFC 6761 `localhost`, RFC 6762 `.local`, RFC 8375 `home.arpa`, common `.lan`/`.internal`). */
const LOCAL_SUFFIXES = ['.localhost', '.local', '.lan', '.internal', '.home.arpa'];

function isLocalIPv4(host: string): boolean {
  const m = /^(\d{1,3})\.(\d{1,3})\.\d{1,3}\.\d{1,3}$/.exec(host);
  if (!m) return false;
  const [a, b] = [Number(m[1]), Number(m[2])];
  // Loopback, the three private ranges (RFC 1918) and link-local.
  return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254);
}

function isLocalIPv6(host: string): boolean {
  if (!host.startsWith('[')) return false;
  const address = host.slice(1, -1);
  // Loopback, unique local (fc00::/7) and link-local (fe80::/10).
  return address === '::1' || /^f[cd][0-9a-f]{0,2}:/.test(address) || /^fe[89ab][0-9a-f]?:/.test(address);
}

/** Whether `hostname` names this computer or one on the local network: a loopback or private address, a name without a dot, or a local suffix. */
export function isLocalHost(hostname: string): boolean {
  if (hostname === 'localhost' || LOCAL_SUFFIXES.some((s) => hostname.endsWith(s))) return true;
  if (isLocalIPv4(hostname) || isLocalIPv6(hostname)) return true;
  return !hostname.includes('.') && !hostname.startsWith('[');
}

/**
 * Refuse a base address that would send the API key unencrypted across the internet.
 * @throws TypeError naming the address and what to use instead.
 */
export function refusePlainHttpKey(url: HttpUrl): void {
  if (url.protocol !== 'http:' || isLocalHost(url.hostname)) return;
  throw new TypeError(
    `the base address ${url.origin} is plain http:// to a computer on the internet, so the API key would cross the network unencrypted: ` +
      'use https:// (plain http:// is taken only for this computer and the local network: localhost, private addresses, names without a dot or ending in .local, .lan, .internal or .home.arpa)',
  );
}
