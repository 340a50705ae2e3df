/**
 * Which service the plugin talks to. Stored by the main thread in
 * `figma.clientStorage` (the UI iframe has no storage of its own that survives);
 * the API key is stored apart and only a hint of it is ever sent for display.
 */

export type BackendChoice = 'hosted' | 'container' | 'emulator';

/** Base address of the hosted Web API v2. */
export const HOSTED_BASE_URL = 'https://api.perfectlyclear.io/v2';
/** Default address of a local emulator started with `pfc-emulator` (Web API v2 below `/v2`). */
export const DEFAULT_EMULATOR_URL = 'http://127.0.0.1:8080/v2';

/** Settings as stored and as shown; never holds the API key. */
export interface Settings {
  backend: BackendChoice;
  /** Colour-correction container, e.g. `http://localhost:8080`. */
  containerURL: string;
  /** Optional background-removal container, used for background removal with the container backend. */
  bgrURL: string;
  /** Web API v2 base address of a local emulator. */
  emulatorURL: string;
}

export const DEFAULT_SETTINGS: Settings = {
  backend: 'hosted',
  containerURL: 'http://localhost:8080',
  bgrURL: '',
  emulatorURL: DEFAULT_EMULATOR_URL,
};

/** Settings for display: plus masked hints of the stored secrets (`••••1a2b`), or null when none is stored. */
export interface PublicSettings extends Settings {
  /** The Web API key (hosted API and emulator). */
  apiKeyHint: string | null;
  /** The background-removal container's licence key (container backend). */
  bgrLicenceHint: string | null;
}

/** What the UI needs to open a backend for a run: the settings and the secrets. */
export interface BackendConfig extends Settings {
  apiKey: string | null;
  bgrLicenceKey: string | null;
}

/** Which stored secret a backend uses: the Web API key, or the BGR container's licence key. */
export type SecretSlot = 'apiKey' | 'bgrLicence';

export function secretSlot(backend: BackendChoice): SecretSlot {
  return backend === 'container' ? 'bgrLicence' : 'apiKey';
}

/** How a settings save treats the stored secret of the chosen backend's slot. */
export type ApiKeyChange = { action: 'keep' } | { action: 'set'; value: string } | { action: 'clear' };

/** A hint that identifies a key without revealing it: its last four characters, only when the key is long enough to spare them. */
export function maskKey(key: string): string {
  return key.length >= 16 ? `••••${key.slice(-4)}` : '••••';
}

function isChoice(v: unknown): v is BackendChoice {
  return v === 'hosted' || v === 'container' || v === 'emulator';
}

/** Stored settings read leniently: unknown or missing fields fall back to the defaults. */
export function normaliseSettings(raw: unknown): Settings {
  const o = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  const str = (k: keyof Settings, fallback: string) => (typeof o[k] === 'string' ? (o[k] as string).trim() : fallback);
  return {
    backend: isChoice(o.backend) ? o.backend : DEFAULT_SETTINGS.backend,
    containerURL: str('containerURL', DEFAULT_SETTINGS.containerURL),
    bgrURL: str('bgrURL', DEFAULT_SETTINGS.bgrURL),
    emulatorURL: str('emulatorURL', DEFAULT_SETTINGS.emulatorURL),
  };
}

const HTTP_URL = /^https?:\/\/[^\s/?#@]+(:\d+)?(\/[^\s]*)?$/i;

/**
 * An error message for an address field, or undefined when it is an address
 * the plugin window can reach. A pattern rather than `URL`: Figma's
 * main-thread sandbox has no `URL`.
 */
export function checkURL(name: string, value: string, required: boolean): string | undefined {
  if (!value) return required ? `${name} is required (an http:// or https:// address)` : undefined;
  if (!HTTP_URL.test(value)) return `${name} must be an http:// or https:// address such as http://localhost:8080 (got ${JSON.stringify(value)})`;
  const host = hostOf(value);
  if (/^http:/i.test(value) && !isLoopbackHost(host)) return `${name}: ${mixedContentText(host)}`;
  return undefined;
}

/** `host[:port]` of an http(s) address. */
function hostOf(url: string): string {
  return url.replace(/^https?:\/\//i, '').replace(/[/?#].*$/, '');
}

/**
 * Whether `host` (`name[:port]`) is this computer: `localhost` (and names
 * below it), 127.0.0.0/8 or [::1]. Browsers treat such plain-http addresses
 * as potentially trustworthy, so an https page may call them (W3C Secure
 * Contexts §3.2; Mixed Content §4.3 "a priori authenticated URL").
 */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/:\d+$/, '');
  return name === 'localhost' || name.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(name) || name === '[::1]';
}

/**
 * Why a plain http:// address on another computer cannot be used: Figma's
 * plugin window is part of an https page (figma.com, or the desktop app that
 * loads it), and the browser blocks its requests to plain http:// addresses
 * other than this computer as mixed content — no HTTP answer, no CSP event.
 */
export function mixedContentText(host: string): string {
  const name = host.replace(/:\d+$/, '');
  const port = /:(\d+)$/.exec(host)?.[1] ?? '80';
  return (
    `plain http://${host} cannot be reached from Figma: the plugin window belongs to an https page, and the browser blocks ` +
    `its http:// requests to other computers (mixed content). Use an https:// address for it (a reverse proxy with a certificate), ` +
    `or a tunnel to this computer, e.g. \`ssh -L ${port}:localhost:${port} ${name}\`, then http://localhost:${port}`
  );
}
