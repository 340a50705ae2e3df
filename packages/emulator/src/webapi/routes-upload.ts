/** `GET /upload`: an upload ticket whose address is on the storage origin (`routes-storage.ts` takes the PUT). */
import { HttpError, sendJson, singleQuery } from '../http/respond';
import type { RouteDef } from '../http/router';
import type { WebApiApp } from './app';

export function uploadRoutes(app: WebApiApp): RouteDef[] {
  return [
    {
      name: 'upload',
      method: 'GET',
      path: '/v2/upload',
      handle({ req, res, url }) {
        const owner = app.auth.check(req);
        const fileType = singleQuery(url, ['fileType']).fileType ?? 'image';
        if (fileType !== 'image' && fileType !== 'video') throw new HttpError(400, `fileType must be one of image, video (got ${JSON.stringify(fileType)})`);
        const record = app.uploads.create(owner, fileType);
        const uploadUrl = `${app.storage}/uploads/${record.fileKey}?${app.signer.sign('file', record.fileKey, app.uploadUrlTtlSeconds, app.uploadContentType)}`;
        // Both spellings (observed behaviour #1): the hosted service answers `upload_url`.
        sendJson(res, 200, { fileKey: record.fileKey, uploadUrl, upload_url: uploadUrl });
      },
    },
  ];
}
