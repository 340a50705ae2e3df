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
 * The harness page is served from http://127.0.0.1, but Figma's UI iframe
 * belongs to an https page, where the browser blocks plain-http requests to
 * other computers as mixed content (W3C Mixed Content §4.3: only "a priori
 * authenticated" addresses — https, wss, and this computer's loopback names —
 * may be fetched). The policy here drops what mixed content would block, so
 * a request the real window could not make fails here too.
 *
 * Stricter than needed where unsure: images and fonts are limited to the
 * same list (the docs name "fetching images" among blocked requests); inline
 * script and style, `data:` and `blob:` images stay allowed because the UI is
 * one inline HTML document.
 */
import { isLoopbackHost } from '../../src/shared/settings';
import type { NetworkAccess } from '../sim/manifest';

export type PluginMode = 'development' | 'published';

/** The CSP source list for `networkAccess` in this mode. */
export function allowedSources(access: NetworkAccess, mode: PluginMode): string {
  const entries = [...access.allowedDomains, ...(mode === 'development' ? (access.devAllowedDomains ?? []) : [])];
  if (entries.includes('*')) return '*';
  const real = entries.filter((e) => e !== 'none');
  return real.length === 0 ? "'none'" : real.join(' ');
}

/** Loopback sources an https page may still reach over plain http. */
const LOOPBACK = ['http://localhost:*', 'http://*.localhost:*', 'http://127.0.0.1:*', 'http://[::1]:*'];

/** The host of a CSP source `http://host[:port|:*][/path]`, without its port. */
function hostOfSource(source: string): string {
  return source.replace(/^http:\/\//i, '').replace(/[/].*$/, '').replace(/:(\d+|\*)$/, '');
}

/** `sources` less what an https page cannot fetch: plain http to other computers (`*` becomes https, wss and loopback http). */
export function withoutMixedContent(sources: string): string {
  if (sources === "'none'") return sources;
  if (sources === '*') return ['https:', 'wss:', ...LOOPBACK].join(' ');
  const kept = sources.split(' ').filter((s) => !/^http:\/\//i.test(s) || isLoopbackHost(hostOfSource(s)));
  return kept.length === 0 ? "'none'" : kept.join(' ');
}

/** The full policy of the UI document. */
export function uiContentSecurityPolicy(access: NetworkAccess, mode: PluginMode): string {
  const sources = allowedSources(access, mode);
  const connect = withoutMixedContent(sources);
  const plus = (extra: string) => (sources === "'none'" ? extra : `${extra} ${sources}`);
  return [
    "default-src 'none'",
    "script-src 'unsafe-inline'",
    "style-src 'unsafe-inline'",
    `img-src ${plus('data: blob:')}`,
    `font-src ${plus('data:')}`,
    `connect-src ${connect}`,
  ].join('; ');
}
