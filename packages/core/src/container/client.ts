/**
 * Typed client of the self-hosted colour-correction container: upload
 * (`PUT /pfc`), correct (`GET /pfc/{imageKey}`), download of `corrected_url`
 * and `GET /version`. Runtime-agnostic; direct file access (no image transfer
 * over HTTP) is `correct()` on a file name plus the Node-side helper in
 * `@pfc/batch` that copies files in and out.
 */
import type { FileInput } from '../backend';
import { ParameterError, ProtocolError } from '../errors';
import { callRequestOptions, readBody, Transport, type CallOptions, type TransportOptions } from '../transport';
import {
  CONTAINER_CONTENT_TYPES,
  containerParamsToQuery,
  imageKeyProblem,
  validateContainerParams,
  type ContainerContentType,
  type ContainerCorrectionResponse,
  type ContainerParams,
  type ContainerUploadResponse,
} from '../contract/container';
import { detectContentType, isReplayable, openInput } from '../selfhosted/input';
import type { DownloadedFile } from '../webapi/jobs';
import { toContainerError } from './errors';
import { rewriteOrigin } from './origin';
import { parseUrl } from '../address';
import { path } from '../url-path';

export interface ContainerClientOptions extends TransportOptions {
  /** Address the container is reached at, e.g. `http://studio-box:8081` (its port 80 as published). */
  baseURL: string;
  /**
   * Point `corrected_url` at `baseURL`'s origin when the container built it from
   * another one (its `PFC_SITE_URL`, default `http://localhost`). Default true.
   */
  rewriteOrigin?: boolean;
  /** Timeout of one `GET /pfc/{imageKey}` attempt in ms; the first request loads the AI models. Default 300 000. */
  processingTimeout?: number;
}

export interface ContainerUploadOptions extends CallOptions {
  /** `image/jpeg` or `image/png`; detected from the bytes, a Blob's type or `fileName` when omitted. */
  contentType?: string;
  /** Name of the input file, used to detect its type. */
  fileName?: string;
}

/** A correction, as the container answered it and as the client will download it. */
export interface ContainerCorrection {
  imageKey: string;
  /** `corrected_url` exactly as the container sent it. */
  correctedUrl: string;
  /** The address `download()` fetches: `correctedUrl`, or it moved onto the client's origin. */
  downloadUrl: string;
  /** Whether `downloadUrl` was rewritten from `correctedUrl`. */
  originRewritten: boolean;
  /** Detected scene category; -1 when not detected or unknown. */
  scene: number;
  /** Parameters the container will ignore (priority rules), and `originNote`. */
  warnings: string[];
  /** What was rewritten and why, when `originRewritten`. */
  originNote?: string;
}

/** `GET /version`, read leniently (the document names only "SDK version and supported features"). */
export interface ContainerVersion {
  sdkVersion: string | undefined;
  features: string[];
  /** The whole answer. */
  raw: unknown;
}


const DEFAULT_PROCESSING_TIMEOUT = 300_000;

export class ContainerClient {
  readonly transport: Transport;
  private readonly rewrite: boolean;
  private readonly processingTimeout: number;

  constructor(options: ContainerClientOptions) {
    this.transport = new Transport(options);
    this.rewrite = options.rewriteOrigin ?? true;
    this.processingTimeout = options.processingTimeout ?? DEFAULT_PROCESSING_TIMEOUT;
  }

  /** `PUT /pfc`: send a JPEG or PNG; anything else is refused before sending. Returns its `imageKey`. */
  async upload(input: FileInput, options: ContainerUploadOptions = {}): Promise<ContainerUploadResponse> {
    const contentType = await containerContentType(input, options);
    const res = await this.call(() =>
      this.transport.json<unknown>('/pfc', {
        method: 'PUT',
        headers: { 'Content-Type': contentType },
        body: isReplayable(input) ? () => openInput(input) as Promise<BodyInit> : (input as BodyInit),
        ...callRequestOptions(options),
      }),
    );
    const key = (res as Partial<ContainerUploadResponse> | undefined)?.imageKey;
    if (typeof key !== 'string' || key === '') throw new ProtocolError('PUT /pfc answered without an imageKey', res);
    return { imageKey: key };
  }

  /**
   * `GET /pfc/{imageKey}`: correct an uploaded image, or (direct file access)
   * a file in the container's `/input` named `imageKey`. Parameters are
   * checked first; a bad one throws `ParameterError` naming it and its range.
   * The call's `timeout` defaults to the client's `processingTimeout`.
   *
   * @example
   * ```ts
   * const { imageKey } = await container.upload(file, { fileName: 'beach.jpg' });
   * const correction = await container.correct(imageKey); // AI Scene Detection
   * const { body } = await container.download(correction);
   * ```
   */
  async correct(imageKey: string, params: ContainerParams = {}, options: CallOptions = {}): Promise<ContainerCorrection> {
    const problem = imageKeyProblem(imageKey);
    const check = validateContainerParams(params as Record<string, unknown>);
    const issues = [...(problem ? [{ param: 'imageKey', message: `imageKey ${JSON.stringify(imageKey)} is not usable: ${problem}` }] : []), ...check.errors];
    if (issues.length > 0) throw new ParameterError(issues);
    const res = await this.call(() =>
      this.transport.json<unknown>(path`/pfc/${imageKey}`, {
        query: containerParamsToQuery(check.params),
        ...callRequestOptions(options),
        timeout: options.timeout ?? this.processingTimeout,
      }),
    );
    const r = res as Partial<ContainerCorrectionResponse> | undefined;
    if (typeof r?.corrected_url !== 'string' || !isUrl(r.corrected_url)) {
      throw new ProtocolError(`GET /pfc/${imageKey} answered without a usable corrected_url`, res);
    }
    const scene = typeof r.scene === 'number' ? r.scene : Number(r.scene ?? -1);
    const moved = this.rewrite ? rewriteOrigin(r.corrected_url, this.transport.baseURL) : { url: r.corrected_url, rewritten: false };
    const originNote = moved.rewritten
      ? `the container's corrected_url points at ${parseUrl(r.corrected_url).origin} (its PFC_SITE_URL); downloaded from ${parseUrl(moved.url).origin} instead`
      : undefined;
    return {
      ...(originNote ? { originNote } : {}),
      imageKey,
      correctedUrl: r.corrected_url,
      downloadUrl: moved.url,
      originRewritten: moved.rewritten,
      scene: Number.isFinite(scene) ? scene : -1,
      warnings: originNote ? [...check.warnings, originNote] : check.warnings,
    };
  }

  /** Open the corrected file (`downloadUrl` of a correction, or any address). */
  async download(target: ContainerCorrection | string, options: CallOptions = {}): Promise<DownloadedFile> {
    const url = typeof target === 'string' ? target : target.downloadUrl;
    // Credentials (if any were configured for a proxy) go only to the container's own origin.
    const sameOrigin = parseUrl(url).origin === parseUrl(this.transport.baseURL).origin;
    const res = await this.call(() => this.transport.request(url, { ...callRequestOptions(options), auth: sameOrigin }));
    if (!res.body) throw new ProtocolError(`GET ${parseUrl(url).pathname} answered without a body`);
    const len = Number(res.headers.get('content-length') ?? NaN);
    return { body: res.body, contentType: res.headers.get('content-type') ?? undefined, size: Number.isFinite(len) ? len : undefined, url };
  }

  /** `GET /version`: SDK version and features. Also the health check. */
  async version(options: CallOptions = {}): Promise<ContainerVersion> {
    const raw = await this.call(() => this.transport.json<unknown>('/version', callRequestOptions(options)));
    return parseVersion(raw);
  }

  /** Whether the container answers `GET /version` (one attempt, no retries). */
  async health(options: Omit<CallOptions, 'maxRetries'> = {}): Promise<boolean> {
    try {
      const res = await this.transport.request('/version', { signal: options.signal, retry: false, timeout: options.timeout ?? 10_000 });
      await readBody(res);
      return true;
    } catch {
      return false;
    }
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw toContainerError(err);
    }
  }
}

/** The input's type if the container accepts it; `ParameterError` (param `contentType`) otherwise. */
export async function containerContentType(input: FileInput, hints: { contentType?: string | undefined; fileName?: string | undefined }): Promise<ContainerContentType> {
  const t = await detectContentType(input, hints);
  if (t && (CONTAINER_CONTENT_TYPES as readonly string[]).includes(t)) return t as ContainerContentType;
  throw new ParameterError([
    {
      param: 'contentType',
      message: t
        ? `the colour-correction container accepts ${CONTAINER_CONTENT_TYPES.join(' or ')} (got ${t})`
        : `the input's type is unknown: pass contentType (${CONTAINER_CONTENT_TYPES.join(' or ')}) or a file name ending .jpg, .jpeg or .png`,
    },
  ]);
}

function parseVersion(raw: unknown): ContainerVersion {
  const o = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  const v = o.sdk_version ?? o.sdkVersion ?? o.SDKVersion ?? o.version ?? (typeof raw === 'string' ? raw.trim() : undefined);
  const f = o.features ?? o.supported_features ?? o.supportedFeatures;
  const features = Array.isArray(f) ? f.map(String) : f && typeof f === 'object' ? Object.keys(f).filter((k) => (f as Record<string, unknown>)[k]) : [];
  return { sdkVersion: v === undefined ? undefined : String(v), features, raw };
}

function isUrl(s: string): boolean {
  try {
    parseUrl(s);
    return true;
  } catch {
    return false;
  }
}
