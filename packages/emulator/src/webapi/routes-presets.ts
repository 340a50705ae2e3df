/** Presets: list, create (then PUT the file to a signed address on the storage origin, `routes-storage.ts`), read, download, delete. */
import type { IncomingMessage } from 'node:http';
import { streamFile } from '../http/files';
import { HttpError, mediaTypeOf, readJsonBody, sendJson, singleQuery } from '../http/respond';
import type { RouteDef } from '../http/router';
import type { WebApiApp } from './app';
import { presetRecord, type PresetEntry } from './presets';

/** Largest `limit` of `GET /presets` (the document leaves it open). */
export const PRESETS_MAX_LIMIT = 100;

function intParam(query: Record<string, string>, name: string, fallback: number, min: number, max: number): number {
  const raw = query[name];
  if (raw === undefined) return fallback;
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new HttpError(400, `${name} must be an integer from ${min} to ${max} (got ${JSON.stringify(raw)})`);
  return n;
}

/**
 * The document says "JSON body"; a JSON body parser on a server skips a body
 * sent as `text/plain` (what `fetch` sends for a string body without a
 * Content-Type) or a form, so such a request would create nothing there. 400,
 * the status of every other invalid request here (the document shows none).
 */
function requireJsonContentType(req: IncomingMessage): void {
  const type = mediaTypeOf(req);
  if (type !== 'application/json') {
    throw new HttpError(400, `POST /presets/ takes a JSON body: send Content-Type: application/json (got ${type ? JSON.stringify(type) : 'none'})`);
  }
}

export function presetRoutes(app: WebApiApp): RouteDef[] {
  const find = (req: IncomingMessage, id: string): PresetEntry => {
    const entry = app.presets.get(app.auth.check(req), id);
    if (!entry) throw new HttpError(404, `no preset with id ${id}`);
    return entry;
  };
  return [
    {
      name: 'presets.list',
      method: 'GET',
      path: '/v2/presets',
      handle({ req, res, url }) {
        const owner = app.auth.check(req);
        const query = singleQuery(url, ['limit', 'offset']);
        const limit = intParam(query, 'limit', 20, 1, PRESETS_MAX_LIMIT);
        const offset = intParam(query, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
        sendJson(res, 200, { presets: app.presets.list(owner, limit, offset).map((e) => presetRecord(e, app.web)) });
      },
    },
    {
      // Also matches `/v2/presets/` (the router ignores a trailing slash), the form public scripts use.
      name: 'presets.create',
      method: 'POST',
      path: '/v2/presets',
      async handle({ req, res }) {
        const owner = app.auth.check(req);
        requireJsonContentType(req);
        const entry = app.presets.create(owner, await readJsonBody(req));
        const uploadUrl = `${app.storage}/preset-uploads/${entry.presetId}?${app.signer.sign('preset', entry.presetId, app.uploadUrlTtlSeconds)}`;
        sendJson(res, 200, { presetId: entry.presetId, uploadUrl });
      },
    },
    {
      name: 'presets.get',
      method: 'GET',
      path: '/v2/presets/:presetId',
      handle({ req, res, params }) {
        sendJson(res, 200, presetRecord(find(req, params.presetId!), app.web));
      },
    },
    {
      name: 'presets.delete',
      method: 'DELETE',
      path: '/v2/presets/:presetId',
      async handle({ req, res, params }) {
        const entry = find(req, params.presetId!);
        app.presets.delete(entry);
        if (entry.file) await app.store.remove(entry.file.path);
        sendJson(res, 200, { presetId: entry.presetId, deleted: true });
      },
    },
    {
      name: 'presets.file',
      method: 'GET',
      path: '/v2/presets/:presetId/file',
      handle({ req, res, params }) {
        const entry = find(req, params.presetId!);
        if (!entry.file) throw new HttpError(404, `preset ${entry.presetId} has no file yet`);
        const safeName = entry.name.replace(/[^\w.-]+/g, '_').slice(0, 100) || 'preset';
        streamFile(res, entry.file.path, entry.file.size, 'application/octet-stream', { 'Content-Disposition': `attachment; filename="${safeName}.preset"` });
      },
    },
  ];
}
