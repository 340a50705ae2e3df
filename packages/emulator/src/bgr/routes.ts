/**
 * The routes of the BGR emulation (see `server.ts` for the protocol): one
 * handler per documented endpoint, each over the shared {@link BgrState}.
 * Error bodies are FastAPI's shape plus our code: `{"detail": …, "code": …}`.
 */
import { stat } from 'node:fs/promises';
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
import { HttpError, sendJson } from '../http/respond';
import { Router, type RequestContext } from '../http/router';
import { describeSniffed, sniff } from '../webapi/filetype';
import type { BgrJob, BgrJobs } from './jobs';

type BgrSubmitOptions = Parameters<BgrJobs['submit']>[2];

/** What the handlers share: the activation, the jobs and the settings resolved from the options. */
export interface BgrState {
  licensed: boolean;
  /** DownloadImage requests being held right now. */
  held: number;
  readonly jobs: BgrJobs;
  /** The only key Authorize accepts; undefined accepts any non-empty key. */
  readonly licenseKey: string | undefined;
  readonly org: string;
  readonly expires: Date;
  readonly holdMs: number;
  readonly beatMs: number;
  readonly maxUpload: number;
  readonly modelVersion: string;
}

function fail(status: number, code: BgrErrorCode, detail: string, extra: Record<string, unknown> = {}): never {
  throw new HttpError(status, detail, { detail, code, ...extra });
}

/** The router of every BGR endpoint, including the 400s for a missing key or process id. */
export function bgrRouter(state: BgrState): Router {
  return new Router().add(
    { name: 'bgr.authorize', method: 'GET', path: '/Authorize/:key', handle: (ctx) => authorize(state, ctx) },
    { name: 'bgr.authorize', method: 'GET', path: '/Authorize', handle: () => fail(400, 'licenceKeyMissing', 'licence key missing') },
    { name: 'bgr.status', method: 'GET', path: '/Status', handle: ({ res }) => sendJson(res, 200, licence(state, 'status', state.licensed ? 'Licensed' : 'Not activated: call /Authorize/{license_key}')) },
    { name: 'bgr.submit', method: 'POST', path: '/SubmitImage', handle: (ctx) => submit(state, ctx) },
    { name: 'bgr.check', method: 'GET', path: '/CheckImage/:id', handle: (ctx) => check(state, ctx) },
    missingId('bgr.check', 'GET', '/CheckImage'),
    { name: 'bgr.download', method: 'GET', path: '/DownloadImage/:id', handle: (ctx) => download(state, ctx) },
    missingId('bgr.download', 'GET', '/DownloadImage'),
    { name: 'bgr.remove', method: 'DELETE', path: '/RemoveImage/:id', handle: (ctx) => remove(state, ctx) },
    missingId('bgr.remove', 'DELETE', '/RemoveImage'),
  );
}

/** A path without its process id: the container answers 400, not 404. */
function missingId(name: string, method: 'GET' | 'DELETE', path: string) {
  return { name, method, path, handle: () => fail(400, 'invalidProcessId', 'process_id missing') };
}

/** The licence status in its two documented forms (Authorize shows the expiry month only). */
function licence(state: BgrState, form: 'authorize' | 'status', message: string): BgrLicenceStatus {
  const { licensed, org, expires } = state;
  return {
    status: licensed ? 'Licensed' : 'Unlicensed',
    message,
    'licensed org': licensed ? org : '',
    'expiration date': licensed ? (form === 'authorize' ? expires.toISOString().slice(0, 7) : expires.toISOString()) : '',
    ...(form === 'status' ? { model_version: state.modelVersion } : {}),
  };
}

function authorize(state: BgrState, { res, params }: RequestContext): void {
  const key = params.key ?? '';
  if (key.trim() === '') fail(400, 'licenceKeyMissing', 'licence key missing');
  state.licensed = state.licenseKey === undefined || key === state.licenseKey;
  sendJson(res, 200, licence(state, 'authorize', state.licensed ? 'Licence activated' : 'Licence key rejected'));
}

function idOf(ctx: RequestContext): string {
  const id = ctx.params.id ?? '';
  if (!isProcessId(id)) fail(400, 'invalidProcessId', 'process_id must be a UUID');
  return id;
}

function jobOf(state: BgrState, ctx: RequestContext): BgrJob {
  const job = state.jobs.get(idOf(ctx));
  if (!job) fail(404, 'notFound', 'processed image not found');
  return job;
}

async function submit(state: BgrState, { req, res, url }: RequestContext): Promise<void> {
  if (!state.licensed) fail(403, 'unlicensed', 'Unlicensed: activate the container with GET /Authorize/{license_key}', { status: 'Unlicensed' });
  const { bytes, name, options } = await readSubmission(req, url, state.maxUpload);
  const job = await state.jobs.submit(bytes, name, options);
  const body: BgrSubmitResponse = { status: 'processing', process_id: job.id, mode: job.mode, preprocessing_enabled: job.preprocessing ? 'true' : 'false', message: 'Image processing started' };
  sendJson(res, 200, body);
}

/**
 * The SubmitImage request, checked in the container's order: body size and form (413/422), the file
 * part (422), the options (422), an empty file (422), then whether the bytes decode as an image (404).
 */
async function readSubmission(req: IncomingMessage, url: URL, maxUpload: number): Promise<{ bytes: Buffer; name: string; options: BgrSubmitOptions }> {
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
  await requireDecodableImage(bytes);
  return {
    bytes,
    name: (file as File).name || 'image',
    options: {
      mode: (mode || 'general') as BgrMode,
      preprocessing: /^true$/i.test(q.preprocessing ?? ''),
      postprocessing: /^true$/i.test(q.postprocessing ?? ''),
    },
  };
}

/**
 * The container answers 404 `invalidFile` (its documented code) for bytes it
 * cannot read as an image. Which types it reads is not documented: JPEG and
 * PNG by content, as the two other APIs take (stricter than every format sharp
 * decodes — WebP, GIF, TIFF, AVIF, SVG).
 */
async function requireDecodableImage(bytes: Buffer): Promise<void> {
  const type = sniff(bytes.subarray(0, 64));
  if (!(type.kind === 'image' && type.supported)) fail(404, 'invalidFile', `file content is ${describeSniffed(type)}; send a JPEG or PNG image`);
  const meta = await sharp(bytes).metadata().catch(() => undefined);
  if (!meta?.width || !meta.height) fail(404, 'invalidFile', 'file content is not an image the container can read');
}

function check(state: BgrState, ctx: RequestContext): void {
  const job = jobOf(state, ctx);
  const body: BgrCheckResponse = {
    status: job.state,
    original_name: job.originalName,
    mode: job.mode,
    ...(job.state === 'completed' ? { processing_time: job.processingTime ?? 0 } : {}),
    ...(job.state === 'failed' ? { error: job.error ?? 'processing failed' } : {}),
  };
  sendJson(ctx.res, 200, body);
}

async function download(state: BgrState, ctx: RequestContext): Promise<void> {
  const job = jobOf(state, ctx);
  if (job.state === 'queued' || job.state === 'processing') await holdDownload(state, ctx.req, ctx.res, job);
  // The client went away while held: nothing left to answer.
  if (ctx.res.destroyed || ctx.res.writableEnded) return;
  if (!state.jobs.get(job.id)) fail(404, 'notFound', 'processed image not found (removed)');
  if (job.state === 'failed') fail(500, 'processingFailed', job.error ?? 'processing failed');
  if (job.state !== 'completed') {
    sendJson(ctx.res, 202, { status: job.state, process_id: job.id, detail: 'still processing; poll CheckImage' }, { 'Retry-After': '1' });
    return;
  }
  await sendResult(state.jobs, job, ctx.res);
}

async function sendResult(jobs: BgrJobs, job: BgrJob, res: ServerResponse): Promise<void> {
  const path = jobs.resultPath(job);
  const info = await stat(path).catch(() => undefined);
  if (!info) fail(404, 'notFound', 'processed image not found');
  streamFile(res, path, info.size, 'image/png', { 'Content-Disposition': `attachment; filename="${job.id}.png"` });
}

/** Hold a DownloadImage until the job settles or `holdMs` passes, sending interim 102s to HTTP/1.1 clients. */
async function holdDownload(state: BgrState, req: IncomingMessage, res: ServerResponse, job: BgrJob): Promise<void> {
  // HTTP/1.0 has no interim responses.
  const interim = req.httpVersion !== '1.0';
  if (interim) res.writeProcessing();
  state.held++;
  const beat = setInterval(() => interim && !res.destroyed && res.writeProcessing(), state.beatMs);
  let timer: NodeJS.Timeout | undefined;
  let onClose: (() => void) | undefined;
  try {
    await Promise.race([
      job.settled,
      new Promise<void>((r) => (timer = setTimeout(r, state.holdMs))),
      new Promise<void>((r) => res.once('close', (onClose = r))),
    ]);
  } finally {
    state.held--;
    clearInterval(beat);
    clearTimeout(timer);
    if (onClose) res.off('close', onClose);
  }
}

async function remove(state: BgrState, ctx: RequestContext): Promise<void> {
  const id = idOf(ctx);
  const r = await state.jobs.remove(id);
  if (!r) fail(404, 'notFound', 'processed image not found');
  const body: BgrRemoveResponse = { status: 'deleted', process_id: id, files_deleted: r.filesDeleted, previous_status: r.previous };
  sendJson(ctx.res, 200, body);
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
