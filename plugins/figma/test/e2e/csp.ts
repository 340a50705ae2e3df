/**
 * The Content-Security-Policy Figma puts on a plugin's UI iframe, derived
 * from manifest.json `networkAccess`: "if your plugin makes a network request
 * to a domain that is not specified in the list of permitted domains, that
 * request is blocked … Figma blocks the requests and throws content-security
 * policy (CSP) errors" (https://developers.figma.com/docs/plugins/updates/2023/05/10/version-1-update-66,
 * https://developers.figma.com/docs/plugins/making-network-requests). Entries
 * have CSP source syntax (`https://host`, `*.example.com`, `host/path/`,
 * `http://localhost:*`); `"none"` allows nothing and `"*"` everything.
 * `devAllowedDomains` apply only while the plugin is in development
 * (imported from a manifest), not once it is published.
 *
 * Stricter than needed where unsure: images and fonts are limited to the
 * same list (the docs name "fetching images" among blocked requests); inline
 * script and style, `data:` and `blob:` images stay allowed because the UI is
 * one inline HTML document.
 */
import type { NetworkAccess } from '../sim/manifest';

export type PluginMode = 'development' | 'published';

/** The CSP source list for `networkAccess` in this mode. */
export function allowedSources(access: NetworkAccess, mode: PluginMode): string {
  const entries = [...access.allowedDomains, ...(mode === 'development' ? (access.devAllowedDomains ?? []) : [])];
  if (entries.includes('*')) return '*';
  const real = entries.filter((e) => e !== 'none');
  return real.length === 0 ? "'none'" : real.join(' ');
}

/** The full policy of the UI document. */
export function uiContentSecurityPolicy(access: NetworkAccess, mode: PluginMode): string {
  const sources = allowedSources(access, mode);
  const plus = (extra: string) => (sources === "'none'" ? extra : `${extra} ${sources}`);
  return [
    "default-src 'none'",
    "script-src 'unsafe-inline'",
    "style-src 'unsafe-inline'",
    `img-src ${plus('data: blob:')}`,
    `font-src ${plus('data:')}`,
    `connect-src ${sources}`,
  ].join('; ');
}
