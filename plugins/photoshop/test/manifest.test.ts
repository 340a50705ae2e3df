/**
 * manifest.json against the manifest v5 rules of AdobeDocs/uxp-photoshop
 * (`src/pages/guides/uxp-guide/uxp-misc/manifest-v5/index.md`) and against what
 * the panel's code needs (the version floor follows the newest API it calls).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PANEL_DIR } from './e2e-page';
import { domainAllowed } from './sim/strict-globals';

interface Icon { width: number; height: number; path: string; scale?: number[]; theme?: string[]; species?: string[] }
const manifest = JSON.parse(readFileSync(join(PANEL_DIR, 'manifest.json'), 'utf8')) as {
  manifestVersion: number; id: string; name: string; version: string; main: string;
  host: { app: string; minVersion: string; data?: { apiVersion?: number } };
  entrypoints: { type: string; id: string; label: { default: string }; icons?: Icon[] }[];
  icons: Icon[];
  requiredPermissions: { network: { domains: string[] | 'all' }; localFileSystem?: string };
};
const build = readFileSync(join(PANEL_DIR, 'scripts/build.mjs'), 'utf8');

const semver = (v: string) => v.split('.').map(Number);
const atLeast = (v: string, floor: string) => {
  const [a, b] = [semver(v), semver(floor)];
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
};

describe('manifest.json (v5)', () => {
  it('is a v5 manifest for Photoshop with apiVersion 2 (executeAsModal, executeasmodal.md:10)', () => {
    expect(manifest.manifestVersion).toBe(5);
    expect(manifest.host.app).toBe('PS');
    expect(manifest.host.data?.apiVersion).toBe(2);
    expect(manifest.main).toBe('index.html');
    expect(manifest.id).toMatch(/\S/);
  });

  it('asks for the version the code needs: the imaging API out of beta and UXP 7.3 (Response), i.e. Photoshop 25.2', () => {
    expect(manifest.host.minVersion).toBe('25.2.0');
    // Never below: `Response` (core builds one around each answer's body) is UXP "Since v7.3.0" (response.md:9),
    // first shipped with Photoshop 25.2 (ps-reference/changelog/index.md:210-212); the imaging API the panel reads
    // and writes pixels with was in Photoshop's Beta build only at 24.4 (changelog/index.md:343-347).
    expect(atLeast(manifest.host.minVersion, '25.2.0')).toBe(true);
    expect(atLeast(manifest.host.minVersion, '24.5.0')).toBe(true); // the first release after imaging's beta-only 24.4
    expect(atLeast(manifest.host.minVersion, '23.0.0')).toBe(true); // executeAsModal hostControl, Layer.move
  });

  it('declares network access that reaches every backend Settings offers, on any port, and the service\'s storage hosts', () => {
    const { domains } = manifest.requiredPermissions.network;
    for (const url of [
      'https://api.perfectlyclear.io/v2/pfc', 'http://127.0.0.1:8080/v2/pfc', 'http://localhost:41234/presets',
      'http://192.168.1.20:8081/process', 'https://uploads-bucket.s3.amazonaws.com/x?sig=1', 'http://127.0.0.1:9999/_storage/up',
    ]) expect(domainAllowed(domains, url), url).toBe(true);
  });

  it('the permission matcher is as strict as UXP: a port-less entry covers the default port only, wildcards subdomains only', () => {
    const old = ['http://localhost', 'https://*.perfectlyclear.io'];
    expect(domainAllowed(old, 'http://localhost/v2')).toBe(true);
    expect(domainAllowed(old, 'http://localhost:8080/v2')).toBe(false);
    expect(domainAllowed(old, 'https://api.perfectlyclear.io/v2')).toBe(true);
    expect(domainAllowed(old, 'https://perfectlyclear.io.evil.com/v2')).toBe(false);
  });

  it('asks for the file system only as far as the plug-in\'s own folders ("plugin", manifest-v5/index.md:220)', () => {
    expect([undefined, 'plugin']).toContain(manifest.requiredPermissions.localFileSystem);
  });

  it('has a panel entry point with dark- and light-theme icons at 1x and 2x, and a plug-in icon the build generates', () => {
    const panel = manifest.entrypoints.find((e) => e.type === 'panel');
    expect(panel?.label.default).toBe('Perfectly Clear');
    const themes = new Set(panel!.icons!.flatMap((i) => i.theme ?? []));
    for (const t of ['darkest', 'dark', 'medium', 'light', 'lightest']) expect(themes, t).toContain(t);
    for (const icon of [...panel!.icons!, ...manifest.icons]) {
      expect(icon.scale).toEqual([1, 2]);
      const base = icon.path.replace(/^icons\//, '').replace(/\.png$/, '');
      // The build writes <name>.png and <name>@2x.png (UXP picks @2x on high-density screens).
      expect(build).toContain(`'${base}.png'`);
      expect(build).toContain(`'${base}@2x.png'`);
    }
    expect(manifest.icons.some((i) => i.species?.includes('pluginList'))).toBe(true);
  });
});
