/**
 * The background-removal (BGR) container emulation (`createBgrServer`):
 * licence activation, SubmitImage, CheckImage, DownloadImage, RemoveImage and
 * Status, with the documented codes. Error bodies are FastAPI's shape plus
 * our code: `{"detail": …, "code": …, "error": …}`.
 *
 * DownloadImage while the job is queued or processing (the document's "102"):
 * the request is held; an interim `102 Processing` goes out at once and every
 * `processingHeartbeatMs` (HTTP/1.1 clients only), then the final answer when
 * the job settles — 200 PNG, 500 when it failed, 404 when it was removed. If it
 * has not settled within `downloadHoldMs`, the final answer is `202 Accepted`
 * with `{"status": "processing"}` and `Retry-After: 1`. fetch ignores the
 * interim 102s and sees only the final status; curl prints them with `-i`.
 */
import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  isProcessId,
  validateBgrSubmitOptions,
  type BgrCheckResponse,
  type BgrErrorCode,
  type BgrLicenceStatus,
  type BgrMode,
  type BgrRemoveResponse,
  type BgrSubmitResponse,
} from '@pfc/core';
import sharp from 'sharp';
import { streamFile } from '../http/files';
import { listen } from '../http/listen';
import { HttpError, sendJson } from '../http/respond';
import { createRequestListener, Router, type RequestContext } from '../http/router';
import type { ImagingEngine } from '../engine';
import { defaultImagingEngine } from '../default-engine';
import { BgrJobs, type BgrJob } from './jobs';

export interface BgrServerOptions {
  /** Interface to listen on. Default `127.0.0.1`. */
  host?: string;
  /** Port. Default 0 (any free port); the bin defaults to 8000. */
  port?: number;
  /** The key `GET /Authorize/{key}` accepts. Default: none configured, and then any non-empty key activates. */
  licenseKey?: string;
  /** `licensed org` of the licence status. Default `Emulated Studio`. */
  licensedOrg?: string;
  /** Licence expiry. Default one year after start. */
  licenceExpires?: Date;
  /** Folder for inputs and results. Default: a fresh temporary folder, removed by `close()`. */
  workDir?: string;
  /**
   * Imaging engine; its `segment` hook (person segmentation) makes the mask. Default: `@pfc/engine`'s
   * `createImagingEngine()`, one per process; `{}` for none (the border-colour heuristic of `bgr/mask.ts`).
   */
  engine?: ImagingEngine;
  /** Largest SubmitImage body in bytes (413 above). Default 100 MB. */
  maxUploadBytes?: number;
  /** Longest a DownloadImage request is held for a running job, ms, before the final 202. Default 30 000. */
  downloadHoldMs?: number;
  /** Interval of interim `102 Processing` answers while held, ms. Default 5 000. */
  processingHeartbeatMs?: number;
  /** Receives one line per request and per unexpected error (never the licence key). Default: silent. */
  log?: (line: string) => void;
}

/** A running BGR emulation. */
export interface BgrServer {
  url: string;
  /** Whether `Authorize` has activated this instance. */
  readonly licensed: boolean;
  /** Forget the activation, as a container restart does. */
  deactivate(): void;
  /** Keep jobs in `processing` until `release()` (test seam). */
  hold(): void;
  release(): void;
  /** Resolves when no job is queued or processing. */
  idle(): Promise<void>;
  /** Files in the work folder (inputs and results not yet removed). */
  files(): Promise<string[]>;
  /** DownloadImage requests being held for a running job right now. */
  readonly heldDownloads: number;
  /** Requests answered, by route name. */
  requests: Record<string, number>;
  close(): Promise<void>;
}

export const EMULATED_MODEL_VERSION = 'emulator-border-heuristic-1';

function fail(status: number, code: BgrErrorCode, detail: string, extra: Record<string, unknown> = {}): never {
  throw new HttpError(status, detail, { detail, code, ...extra });
}

/** Starts the BGR emulation; resolves once it listens. */
export async function createBgrServer(options: BgrServerOptions = {}): Promise<BgrServer> {
  const ownsDir = options.workDir === undefined;
  const dir = options.workDir ?? (await mkdtemp(join(tmpdir(), 'pfc-bgr-')));
  if (!ownsDir) await mkdir(dir, { recursive: true });
  let licensed = false;
  let held = 0;
  const engine = options.engine ?? defaultImagingEngine();
  const jobs = new BgrJobs(dir, { engine, licensed: () => licensed });
  const expires = options.licenceExpires ?? new Date(Date.now() + 365 * 24 * 3600_000);
  const org = options.licensedOrg ?? 'Emulated Studio';
  const holdMs = options.downloadHoldMs ?? 30_000;
  const beatMs = options.processingHeartbeatMs ?? 5_000;
  const maxUpload = options.maxUploadBytes ?? 100_000_000;
  const requests: Record<string, number> = {};
  const modelVersion = engine.segment ? 'emulator-engine-segmentation' : EMULATED_MODEL_VERSION;

  const licence = (form: 'authorize' | 'status', message: string): BgrLicenceStatus => ({
    status: licensed ? 'Licensed' : 'Unlicensed',
    message,
    'licensed org': licensed ? org : '',
    'expiration date': licensed ? (form === 'authorize' ? expires.toISOString().slice(0, 7) : expires.toISOString()) : '',
    ...(form === 'status' ? { model_version: modelVersion } : {}),
  });

  const idOf = (ctx: RequestContext): string => {
    const id = ctx.params.id ?? '';
    if (!isProcessId(id)) fail(400, 'invalidProcessId', 'process_id must be a UUID');
    return id;
  };
  const jobOf = (ctx: RequestContext): BgrJob => {
    const job = jobs.get(idOf(ctx));
    if (!job) fail(404, 'notFound', 'processed image not found');
    return job;
  };

  async function submit({ req, res, url }: RequestContext): Promise<void> {
    if (!licensed) fail(403, 'unlicensed', 'Unlicensed: activate the container with GET /Authorize/{license_key}', { status: 'Unlicensed' });
    const q = { preprocessing: url.searchParams.get('preprocessing') ?? undefined, postprocessing: url.searchParams.get('postprocessing') ?? undefined };
    const form = await readForm(req, maxUpload);
    const file = form.get('file');
    if (!(file instanceof Blob)) fail(422, 'missingFile', 'file missing', { detail: [{ loc: ['body', 'file'], msg: 'field required', type: 'value_error.missing' }] });
    const mode = form.get('mode');
    const cfg = form.get('preprocessing_config');
    const { errors } = validateBgrSubmitOptions({ ...q, mode: typeof mode === 'string' ? mode : undefined, preprocessing_config: typeof cfg === 'string' ? cfg : undefined });
    if (errors.length > 0) fail(422, 'invalidParameter', errors.map((e) => e.message).join('; '), { detail: errors.map((e) => ({ loc: ['body', e.param], msg: e.message, type: 'value_error' })) });
    const bytes = Buffer.from(await file.arrayBuffer());
    // An empty part (a form sent with no file chosen) carries no file: 422 like a missing one, not a decode error.
    if (bytes.length === 0) fail(422, 'missingFile', 'file missing: the file part is empty (0 bytes)', { detail: [{ loc: ['body', 'file'], msg: 'file is empty', type: 'value_error.missing' }] });
    const meta = await sharp(bytes).metadata().catch(() => undefined);
    if (!meta?.width || !meta.height) fail(404, 'invalidFile', 'file content is not an image the container can read');
    const job = await jobs.submit(bytes, (file as File).name || 'image', {
      mode: (mode || 'general') as BgrMode,
      preprocessing: /^true$/i.test(q.preprocessing ?? ''),
      postprocessing: /^true$/i.test(q.postprocessing ?? ''),
    });
    const body: BgrSubmitResponse = { status: 'processing', process_id: job.id, mode: job.mode, preprocessing_enabled: job.preprocessing ? 'true' : 'false', message: 'Image processing started' };
    sendJson(res, 200, body);
  }

  function check(ctx: RequestContext): void {
    const job = jobOf(ctx);
    const body: BgrCheckResponse = {
      status: job.state,
      original_name: job.originalName,
      mode: job.mode,
      ...(job.state === 'completed' ? { processing_time: job.processingTime ?? 0 } : {}),
      ...(job.state === 'failed' ? { error: job.error ?? 'processing failed' } : {}),
    };
    sendJson(ctx.res, 200, body);
  }

  async function download(ctx: RequestContext): Promise<void> {
    const job = jobOf(ctx);
    if (job.state === 'queued' || job.state === 'processing') await hold(ctx.req, ctx.res, job);
    if (ctx.res.destroyed || ctx.res.writableEnded) return;
    if (!jobs.get(job.id)) fail(404, 'notFound', 'processed image not found (removed)');
    if (job.state === 'failed') fail(500, 'processingFailed', job.error ?? 'processing failed');
    if (job.state !== 'completed') {
      sendJson(ctx.res, 202, { status: job.state, process_id: job.id, detail: 'still processing; poll CheckImage' }, { 'Retry-After': '1' });
      return;
    }
    const path = jobs.resultPath(job);
    const info = await stat(path).catch(() => undefined);
    if (!info) fail(404, 'notFound', 'processed image not found');
    streamFile(ctx.res, path, info.size, 'image/png', { 'Content-Disposition': `attachment; filename="${job.id}.png"` });
  }

  /** Hold a DownloadImage until the job settles or `holdMs` passes, sending interim 102s to HTTP/1.1 clients. */
  async function hold(req: IncomingMessage, res: ServerResponse, job: BgrJob): Promise<void> {
    const interim = req.httpVersion !== '1.0';
    if (interim) res.writeProcessing();
    held++;
    const beat = setInterval(() => interim && !res.destroyed && res.writeProcessing(), beatMs);
    let timer: NodeJS.Timeout | undefined;
    let onClose: (() => void) | undefined;
    try {
      await Promise.race([
        job.settled,
        new Promise<void>((r) => (timer = setTimeout(r, holdMs))),
        new Promise<void>((r) => res.once('close', (onClose = r))),
      ]);
    } finally {
      held--;
      clearInterval(beat);
      clearTimeout(timer);
      if (onClose) res.off('close', onClose);
    }
  }

  async function remove(ctx: RequestContext): Promise<void> {
    const id = idOf(ctx);
    const r = await jobs.remove(id);
    if (!r) fail(404, 'notFound', 'processed image not found');
    const body: BgrRemoveResponse = { status: 'deleted', process_id: id, files_deleted: r.filesDeleted, previous_status: r.previous };
    sendJson(ctx.res, 200, body);
  }

  const missingId = (name: string, method: 'GET' | 'DELETE', path: string) => ({
    name,
    method,
    path,
    handle: () => fail(400, 'invalidProcessId', 'process_id missing'),
  });
  const router = new Router().add(
    {
      name: 'bgr.authorize',
      method: 'GET',
      path: '/Authorize/:key',
      handle: ({ res, params }) => {
        const key = params.key ?? '';
        if (key.trim() === '') fail(400, 'licenceKeyMissing', 'licence key missing');
        licensed = options.licenseKey === undefined || key === options.licenseKey;
        sendJson(res, 200, licence('authorize', licensed ? 'Licence activated' : 'Licence key rejected'));
      },
    },
    { name: 'bgr.authorize', method: 'GET', path: '/Authorize', handle: () => fail(400, 'licenceKeyMissing', 'licence key missing') },
    { name: 'bgr.status', method: 'GET', path: '/Status', handle: ({ res }) => sendJson(res, 200, licence('status', licensed ? 'Licensed' : 'Not activated: call /Authorize/{license_key}')) },
    { name: 'bgr.submit', method: 'POST', path: '/SubmitImage', handle: submit },
    { name: 'bgr.check', method: 'GET', path: '/CheckImage/:id', handle: check },
    missingId('bgr.check', 'GET', '/CheckImage'),
    { name: 'bgr.download', method: 'GET', path: '/DownloadImage/:id', handle: download },
    missingId('bgr.download', 'GET', '/DownloadImage'),
    { name: 'bgr.remove', method: 'DELETE', path: '/RemoveImage/:id', handle: remove },
    missingId('bgr.remove', 'DELETE', '/RemoveImage'),
  );
  const log = options.log;
  const listener = createRequestListener(router, {
    onRequest: (name) => (requests[name] = (requests[name] ?? 0) + 1),
    // Route names only: the Authorize path holds the key.
    onResponse: (name, status) => log?.(`bgr ${name} ${status}`),
    onError: (name, err) => log?.(`bgr ${name} error: ${err instanceof Error ? err.message : String(err)}`),
  });
  const server = await listen(listener, options.host ?? '127.0.0.1', options.port ?? 0);

  let closing: Promise<void> | undefined;
  return {
    url: server.origin,
    get licensed() {
      return licensed;
    },
    get heldDownloads() {
      return held;
    },
    deactivate: () => {
      licensed = false;
    },
    hold: () => jobs.hold(),
    release: () => jobs.release(),
    idle: () => jobs.idle(),
    files: async () => (await readdir(dir)).sort(),
    requests,
    close() {
      closing ??= (async () => {
        jobs.release();
        await server.close();
        await jobs.idle();
        if (ownsDir) await rm(dir, { recursive: true, force: true });
      })();
      return closing;
    },
  };
}

/** Read a multipart body (up to `max` bytes) as FormData; 413 above, 422 when it is not a form. */
async function readForm(req: IncomingMessage, max: number): Promise<FormData> {
  const declared = Number(req.headers['content-length']);
  const tooLarge = () => new HttpError(413, `the body is larger than the limit of ${max} bytes`, { detail: `the body is larger than the limit of ${max} bytes` });
  if (Number.isFinite(declared) && declared > max) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) throw tooLarge();
    chunks.push(chunk);
  }
  const type = String(req.headers['content-type'] ?? '');
  if (!/^multipart\/form-data/i.test(type)) fail(422, 'missingFile', 'file missing: send multipart/form-data with a file field', { detail: [{ loc: ['body', 'file'], msg: 'field required', type: 'value_error.missing' }] });
  try {
    return await new Response(Buffer.concat(chunks), { headers: { 'content-type': type } }).formData();
  } catch {
    return fail(422, 'missingFile', 'the multipart body could not be parsed');
  }
}

