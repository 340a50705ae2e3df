/**
 * The storage origin: the pre-signed PUTs of uploads and preset files, and the
 * public addresses of corrected files. On the hosted service these are object
 * storage on other hosts than the API, so the emulator serves them from their
 * own listener by default (`storage.ts` rules, `routes-storage` here); with
 * `storageSameOrigin` they sit under the API's `/v2` as before.
 */
import { streamFile } from '../http/files';
import { sendJson } from '../http/respond';
import type { RequestContext, RouteDef } from '../http/router';
import { isId, type ReceivedFile } from '../storage';
import type { WebApiApp } from './app';
import type { SignedPurpose } from './signing';
import { checkPutFraming, checkSignature, receiveFailure, sentContentType, storageError, type StorageMode } from './storage-rules';

/**
 * Routes of the storage, under `prefix` ('' on its own origin, '/v2' on the API's).
 */
export function storageRoutes(app: WebApiApp, prefix: string): RouteDef[] {
  const mode: StorageMode = { strict: app.strictStorage };
  return [
    {
      name: 'upload.put',
      method: 'PUT',
      path: `${prefix}/uploads/:fileKey`,
      async handle(ctx) {
        const fileKey = ctx.params.fileKey!;
        verifyPut(app, mode, ctx, 'file', fileKey, app.uploadContentType);
        const record = isId(fileKey) ? app.uploads.get(fileKey) : undefined;
        if (!record) throw storageError(mode, 404, 'NoSuchUpload', 'this upload ticket is no longer known; request a new one');
        const received = await receive(app, mode, ctx, app.store.uploadPath(record.fileKey), app.limits.maxUploadBytes);
        const file = await app.uploads.completed(record, received);
        answerPut(mode, ctx, received, { fileKey: record.fileKey, size: file.size });
      },
    },
    {
      name: 'presets.put',
      method: 'PUT',
      path: `${prefix}/preset-uploads/:presetId`,
      async handle(ctx) {
        const id = ctx.params.presetId!;
        verifyPut(app, mode, ctx, 'preset', id, '');
        const entry = app.presets.getById(id);
        if (!entry) throw storageError(mode, 404, 'NoSuchUpload', 'this preset no longer exists');
        const path = app.store.presetPath(entry.presetId);
        const received = await receive(app, mode, ctx, path, app.limits.maxPresetBytes);
        entry.file = { ...received, path, uploadedAt: app.now() };
        answerPut(mode, ctx, received, { presetId: entry.presetId, size: received.size });
      },
    },
    {
      name: 'result',
      method: 'GET',
      path: `${prefix}/results/:file`,
      head: true,
      handle({ res, params }) {
        const m = /^([0-9a-f-]{36})\.(jpg|png|mp4|mov)$/.exec(params.file!);
        const r = m && isId(m[1]!) ? app.results.get(m[1]!) : undefined;
        if (!r || r.extension !== m?.[2]) throw storageError(mode, 404, 'NoSuchKey', 'no such result');
        if (r.expired) throw storageError(mode, 410, 'Gone', `this result has expired (results are kept ${app.retentionMinutes} minutes)`);
        const maxAge = Math.max(0, Math.floor((r.expiresAt - app.now()) / 1000));
        streamFile(res, r.path, r.size, r.contentType, { 'Cache-Control': `public, max-age=${maxAge}` });
      },
    },
  ];
}

/**
 * Framing, then the signature: it covers the Content-Type the address was
 * issued for, which a strict storage compares with the one sent. The id is
 * covered too, so a forged id (or a path trick) fails here, before any file access.
 */
function verifyPut(app: WebApiApp, mode: StorageMode, { req, url }: RequestContext, purpose: SignedPurpose, id: string, signedType: string): void {
  checkPutFraming(mode, req);
  const contentType = mode.strict ? sentContentType(req) : signedType;
  checkSignature(mode, app.signer.verify(purpose, id, url.searchParams, contentType));
}

async function receive(app: WebApiApp, mode: StorageMode, { req }: RequestContext, dest: string, maxBytes: number): Promise<ReceivedFile> {
  try {
    return await app.store.receive(req, dest, maxBytes);
  } catch (err) {
    throw receiveFailure(mode, req, err);
  }
}

/** Storage answers 200 with an ETag and no body; the lenient mode keeps the emulator's JSON summary. */
function answerPut(mode: StorageMode, { res }: RequestContext, received: ReceivedFile, summary: Record<string, unknown>): void {
  const etag = `"${received.sha256}"`;
  if (!mode.strict) {
    sendJson(res, 200, summary, { ETag: etag });
    return;
  }
  res.writeHead(200, { ETag: etag, 'Content-Length': '0' });
  res.end();
}
