/**
 * Licence activation of the BGR container: `GET /Authorize/{license_key}` once
 * per container instance, cached per base URL for the whole process (every
 * client of the same container shares it). The key travels in the URL path:
 * the call is labelled without it and the key is a transport secret, scrubbed
 * from every error and retry notice.
 */
import { ParameterError, redactError, UserAbortError } from '../errors';
import { Transport, type RetryInfo } from '../transport';
import type { BgrLicenceStatus } from '../contract/bgr';
import { BgrLicenceError, toBgrError } from './errors';
import { path } from '../url-path';

/** Activations per container base URL. */
const activations = new Map<string, Promise<BgrLicenceStatus>>();

/** Forget cached activations (all, or one container's), e.g. after replacing a container. */
export function clearBgrLicenceCache(baseURL?: string): void {
  if (baseURL === undefined) activations.clear();
  else activations.delete(normalise(baseURL));
}

/** How the Authorize call is named in errors and retry notices: its path holds the key. */
const AUTHORIZE_LABEL = 'GET /Authorize/[redacted]';

function normalise(baseURL: string): string {
  return baseURL.replace(/\/+$/, '');
}

/** Who an activation is for: its caller's signal, and whom to tell of its waits. */
interface Activation {
  signal?: AbortSignal | undefined;
  onRetry?: ((info: RetryInfo) => void) | undefined;
}

export class LicenceCache {
  private readonly base: string;
  private readonly auth: Transport;
  /** Keys used with this container, scrubbed from every error. */
  private readonly keys = new Set<string>();

  constructor(
    private readonly transport: Transport,
    private readonly options: { licenseKey?: string | undefined },
  ) {
    this.base = normalise(transport.baseURL);
    if (options.licenseKey) this.keys.add(options.licenseKey);
    const own = transport.options.secrets;
    this.auth = new Transport({ ...transport.options, secrets: () => [...(own?.() ?? []), ...this.keys, ...[...this.keys].map(encodeURIComponent)] });
  }

  /**
   * Activate unless this container instance is known to be licensed. `onRetry` is told the activation's
   * waits when this call starts it; a call that finds another's activation under way waits for it untold.
   */
  async ensure(signal?: AbortSignal, onRetry?: (info: RetryInfo) => void): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const cached = activations.get(this.base);
      try {
        if (cached) await cached;
        else if (this.options.licenseKey) await this.authorize(undefined, { signal, onRetry });
        else await this.remember(this.statusOnly(signal, onRetry));
        return;
      } catch (err) {
        // Another caller's abort rejected the shared activation: try once on our own.
        if (err instanceof UserAbortError && !signal?.aborted && attempt === 0) continue;
        throw err;
      }
    }
  }

  /** `GET /Authorize/{key}`; the cached activation unless `force`. */
  authorize(key: string | undefined, options: Activation & { force?: boolean } = {}): Promise<BgrLicenceStatus> {
    const k = key ?? this.options.licenseKey;
    if (!k) return Promise.reject(new ParameterError([{ param: 'licenseKey', message: 'licenseKey is required to activate the background-removal container' }]));
    if (!options.force) {
      const cached = activations.get(this.base);
      if (cached) return cached;
    }
    return this.remember(this.activate(k, options));
  }

  /** Drop this container's cached activation (it reported Unlicensed). */
  forget(): void {
    activations.delete(this.base);
  }

  private remember(p: Promise<BgrLicenceStatus>): Promise<BgrLicenceStatus> {
    activations.set(this.base, p);
    p.catch(() => {
      if (activations.get(this.base) === p) activations.delete(this.base);
    });
    return p;
  }

  private async activate(key: string, { signal, onRetry }: Activation): Promise<BgrLicenceStatus> {
    this.keys.add(key);
    let status: BgrLicenceStatus;
    try {
      status = await this.auth.json<BgrLicenceStatus>(path`/Authorize/${key}`, { signal, label: AUTHORIZE_LABEL, ...(onRetry ? { onRetry } : {}) });
    } catch (err) {
      throw toBgrError(err, 'authorize');
    }
    if (status?.status !== 'Licensed') {
      const why = typeof status?.message === 'string' && status.message ? `: ${status.message}` : '';
      const secrets = [key, encodeURIComponent(key)];
      // A server may echo the key back; the answer is kept only with it scrubbed out.
      const scrubbed = JSON.parse(secrets.reduce((t, k) => t.split(k).join('[redacted]'), JSON.stringify(status ?? null))) as unknown;
      throw redactError(new BgrLicenceError(`the background-removal container refused the licence key (status ${String(status?.status)})${why}`, scrubbed), secrets);
    }
    return status;
  }

  private async statusOnly(signal: AbortSignal | undefined, onRetry: ((info: RetryInfo) => void) | undefined): Promise<BgrLicenceStatus> {
    let status: BgrLicenceStatus;
    try {
      status = await this.transport.json<BgrLicenceStatus>('/Status', { signal, ...(onRetry ? { onRetry } : {}) });
    } catch (err) {
      throw toBgrError(err, 'status');
    }
    if (status?.status !== 'Licensed') {
      throw new BgrLicenceError('the background-removal container is Unlicensed and no licenseKey was given to activate it', status);
    }
    return status;
  }
}
