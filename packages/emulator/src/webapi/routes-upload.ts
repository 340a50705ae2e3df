/** `GET /upload` (ticket) and the pre-signed `PUT` of the file. */
import { HttpError, sendJson, singleQuery } from '../http/respond';
import type { RouteDef } from '../http/router';
import { isId } from '../storage';
import type { WebApiApp } from './app';

export function uploadRoutes(app: WebApiApp): RouteDef[] {
  return [
    {
      name: 'upload',
      method: 'GET',
      path: '/v2/upload',
      handle({ req, res, url }) {
        app.auth.check(req);
        const fileType = singleQuery(url).fileType ?? 'image';
        if (fileType !== 'image' && fileType !== 'video') throw new HttpError(400, `fileType must be one of image, video (got ${JSON.stringify(fileType)})`);
        const record = app.uploads.create(fileType);
        const uploadUrl = `${app.web}/uploads/${record.fileKey}?${app.signer.sign('file', record.fileKey, app.uploadUrlTtlSeconds)}`;
        // Both spellings (observed behaviour #1): the hosted service answers `upload_url`.
        sendJson(res, 200, { fileKey: record.fileKey, uploadUrl, upload_url: uploadUrl });
      },
    },
    {
      name: 'upload.put',
      method: 'PUT',
      path: '/v2/uploads/:fileKey',
      async handle({ req, res, url, params }) {
        const fileKey = params.fileKey!;
        // The signature covers the id, so a forged id (or a path trick) fails here, before any file access.
        app.signer.verify('file', fileKey, url.searchParams);
        const record = isId(fileKey) ? app.uploads.get(fileKey) : undefined;
        if (!record) throw new HttpError(404, 'this upload ticket is no longer known; request a new one');
        const received = await app.store.receive(req, app.store.uploadPath(record.fileKey), app.limits.maxUploadBytes);
        const file = await app.uploads.completed(record, received);
        sendJson(res, 200, { fileKey: record.fileKey, size: file.size }, { ETag: `"${file.sha256}"` });
      },
    },
  ];
}
