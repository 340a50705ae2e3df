/**
 * The bin's flags and environment variables of the two container emulations.
 * Flags win over variables; variables over defaults. The documented `PFC_*`
 * variables of the colour-correction container work as they do in it.
 */
import type { BgrServerOptions } from '../bgr/server';
import { checkSiteUrl, checkTtl, containerOptionsFromEnv, type ContainerServerOptions } from './options';

const str = { type: 'string' } as const;

/** `parseArgs` option definitions, spread into the bin's. */
export const selfHostedFlags = {
  'container-port': str,
  'bgr-port': str,
  'site-url': str,
  'presets-dir': str,
  'input-dir': str,
  'output-dir': str,
  'license-key': str,
  'cache-ttl-minutes': str,
  'container-instances': str,
  'container-workers': str,
} as const;

export const selfHostedHelp = `
Self-hosted containers (environment variables in brackets; flags win):
  --container-port PORT       colour-correction container (default 8081, or any
                              free port with --web-port 0; 0 = any free port;
                              off = not started) [PFC_CONTAINER_PORT]
  --bgr-port PORT             background-removal container (default 8000, or any
                              free port with --web-port 0; off = not started)
                              [PFC_BGR_PORT]
  --site-url URL              base of corrected_url (default http://localhost, as
                              documented; clients rewrite it) [PFC_SITE_URL]
  --presets-dir DIR           NAME.preset files and ICC profiles [PFC_PRESETS_DIR]
  --input-dir DIR             the container's /input (uploads; direct file access)
                              [PFC_INPUT_DIR]
  --output-dir DIR            the container's /output [PFC_OUTPUT_DIR]
  --license-key KEY           the key BGR's /Authorize accepts (default: any
                              non-empty key) [PFC_LICENSE_KEY]
  --cache-ttl-minutes MIN     keep uploads and outputs this long, swept every 10
                              minutes (default 60) [PFC_IMG_CACHE_TTL]
  --container-instances MS,MS,...
                              a fleet: one colour container per value, each
                              taking at least MS per correction (the first on
                              --container-port, the others on free ports; their
                              URLs are container2, container3… in the ready line)
  --container-workers N       corrections each colour container runs at once
                              (default: no limit)
  Also read: PFC_LOG_LEVEL, PFC_PRESERVE_INPUT_FILENAME, PFC_SKIP_MODE,
  PFC_SKIP_EXIF_SOFTWARE, PFC_ENABLE_COMPOSITE (see the emulator README).
`;

type Values = { [K in keyof typeof selfHostedFlags]?: string | undefined };

function port(name: string, raw: string | undefined, fallback: number): number | false {
  if (raw === undefined) return fallback;
  if (raw.trim().toLowerCase() === 'off') return false;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`${name} must be a port from 0 to 65535, or off (got ${JSON.stringify(raw)})`);
  return n;
}

/**
 * Container and BGR options from parsed flags and the environment. Throws an
 * Error naming the flag or variable on a bad value (never echoing a licence key).
 */
export function selfHostedOptionsFrom(
  values: Values,
  env: Readonly<Record<string, string | undefined>>,
  /** `--web-port 0` asks for free ports: the containers then default to free ports too (tests, CI), not 8081/8000. */
  ephemeral = false,
): { container: ContainerServerOptions | false; bgr: BgrServerOptions | false; containerInstances?: ContainerServerOptions[] } {
  const cPort = port(values['container-port'] !== undefined ? '--container-port' : 'PFC_CONTAINER_PORT', values['container-port'] ?? env.PFC_CONTAINER_PORT, ephemeral ? 0 : 8081);
  const bPort = port(values['bgr-port'] !== undefined ? '--bgr-port' : 'PFC_BGR_PORT', values['bgr-port'] ?? env.PFC_BGR_PORT, ephemeral ? 0 : 8000);
  const fromEnv = containerOptionsFromEnv(env);
  const container: ContainerServerOptions = { ...fromEnv };
  if (values['site-url'] !== undefined) container.siteUrl = checkSiteUrl(values['site-url'], '--site-url');
  if (values['presets-dir'] !== undefined) container.presetsDir = values['presets-dir'];
  if (values['input-dir'] !== undefined) container.inputDir = values['input-dir'];
  if (values['output-dir'] !== undefined) container.outputDir = values['output-dir'];
  if (values['cache-ttl-minutes'] !== undefined) container.cacheTtlMinutes = checkTtl(values['cache-ttl-minutes'], '--cache-ttl-minutes');
  const key = values['license-key'] ?? env.PFC_LICENSE_KEY;
  if (key !== undefined && key.trim() === '') throw new Error('--license-key must not be empty');
  const workers = values['container-workers'] !== undefined ? count('--container-workers', values['container-workers']) : undefined;
  if (workers !== undefined) container.workers = workers;
  const times = values['container-instances'] !== undefined ? msList('--container-instances', values['container-instances']) : undefined;
  if (times && cPort === false) throw new Error('--container-instances needs the colour container (not --container-port off)');
  if (times) container.processingMs = times[0]!;
  return {
    ...(times && times.length > 1 ? { containerInstances: times.slice(1).map((processingMs) => ({ processingMs })) } : {}),
    container: cPort === false ? false : { ...container, port: cPort },
    bgr: bPort === false ? false : { port: bPort, ...(key !== undefined ? { licenseKey: key } : {}) },
  };
}

/** An integer from 1 to 64. */
function count(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new Error(`${flag} must be an integer from 1 to 64 (got ${JSON.stringify(value)})`);
  return n;
}

/** Comma-separated processing times, ms: 1 to 16 numbers from 0 to 600,000. */
function msList(flag: string, value: string): number[] {
  const items = value.split(',').map((v) => v.trim());
  const ms = items.map(Number);
  if (items.length > 16 || ms.some((n, i) => items[i] === '' || !Number.isFinite(n) || n < 0 || n > 600_000)) {
    throw new Error(`${flag} takes 1 to 16 comma-separated times in ms, each from 0 to 600000 (got ${JSON.stringify(value)})`);
  }
  return ms;
}
