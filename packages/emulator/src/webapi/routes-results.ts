/** Public addresses of corrected files (no key); they expire after the retention time. */
import { streamFile } from '../http/files';
import { HttpError } from '../http/respond';
import type { RouteDef } from '../http/router';
import { isId } from '../storage';
import type { WebApiApp } from './app';

export function resultRoutes(app: WebApiApp): RouteDef[] {
  return [
    {
      name: 'result',
      method: 'GET',
      path: '/v2/results/:file',
      head: true,
      handle({ res, params }) {
        const m = /^([0-9a-f-]{36})\.(jpg|png|mp4|mov)$/.exec(params.file!);
        const r = m && isId(m[1]!) ? app.results.get(m[1]!) : undefined;
        if (!r || r.extension !== m?.[2]) throw new HttpError(404, 'no such result');
        if (r.expired) throw new HttpError(410, `this result has expired (results are kept ${app.retentionMinutes} minutes)`);
        const maxAge = Math.max(0, Math.floor((r.expiresAt - app.now()) / 1000));
        streamFile(res, r.path, r.size, r.contentType, { 'Cache-Control': `public, max-age=${maxAge}` });
      },
    },
  ];
}
