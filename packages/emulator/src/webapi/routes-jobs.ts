/** `GET /pfc` (start a job) and `GET /status/{jobID}`. */
import { createHash } from 'node:crypto';
import { BUILT_IN_PRESETS, usageSizeOf, validatePfcParams, type PfcParams } from '@pfc/core';
import { HttpError, sendJson, singleQuery } from '../http/respond';
import type { RouteDef } from '../http/router';
import type { WebApiApp } from './app';
import { jobParams } from './process';
import type { UploadedFile } from './uploads';

const BUILT_IN = new Set<string>([...BUILT_IN_PRESETS, 'none']);

export function jobRoutes(app: WebApiApp): RouteDef[] {
  return [
    {
      name: 'pfc',
      method: 'GET',
      path: '/v2/pfc',
      handle({ req, res, url }) {
        const owner = app.auth.check(req);
        app.accounts.admitJob(owner);
        // Unknown names are a 400 (the contract is silent; stricter): a misspelt or
        // wrongly cased option (`autoCrop`, `outputquality`) would otherwise run with its default.
        const check = validatePfcParams(singleQuery(url), { unknown: 'error', requireFileKey: true });
        if (check.errors.length > 0) throw new HttpError(400, check.errors.map((e) => e.message).join('; '), { errors: check.errors });
        const p = check.params;
        const file = uploadedFile(app, owner, 'fileKey', p.fileKey!, p.fileType ?? 'image');
        const params = jobParams(p);

        let presetPath: string | undefined;
        let presetHash = '';
        if (params.preset !== undefined && !BUILT_IN.has(params.preset)) {
          const preset = app.presets.byName(owner, params.preset);
          if (!preset) {
            throw new HttpError(400, `preset "${params.preset}" is neither a built-in preset (${[...BUILT_IN].join(', ')}) nor a custom preset name of this API key`);
          }
          if (!preset.file) throw new HttpError(400, `preset "${params.preset}" has no file yet: PUT the preset file to its uploadUrl first`);
          presetPath = preset.file.path;
          presetHash = preset.file.sha256;
        }
        let backgroundPath: string | undefined;
        let backgroundHash = '';
        if (params.bgFileKey !== undefined) {
          const bg = uploadedFile(app, owner, 'bgFileKey', params.bgFileKey, 'image');
          if (!(bg.sniffed.kind === 'image' && bg.sniffed.supported)) throw new HttpError(400, 'bgFileKey must name an uploaded JPEG or PNG image');
          backgroundPath = bg.path;
          backgroundHash = bg.sha256;
        }
        let referencePath: string | undefined;
        let referenceHash = '';
        if (params.aiArtReferenceFileKey !== undefined) {
          const ref = uploadedFile(app, owner, 'aiArtReferenceFileKey', params.aiArtReferenceFileKey, 'image');
          if (!(ref.sniffed.kind === 'image' && ref.sniffed.supported)) throw new HttpError(400, 'aiArtReferenceFileKey must name an uploaded JPEG or PNG image');
          referencePath = ref.path;
          referenceHash = ref.sha256;
        }

        const job = app.queue.create({
          params,
          requested: p,
          useCache: params.cache !== false,
          file,
          presetPath,
          backgroundPath,
          referencePath,
          cacheKey: cacheKey(file, params, presetHash, backgroundHash, referenceHash),
          originalDimensions: file.dimensions,
          usageSize: usageSize(file),
          fault: app.faults.forJob(),
        });
        app.accounts.started(owner, job.record);
        sendJson(res, 200, { statusEndpoint: `${app.web}/status/${job.record._id}` });
      },
    },
    {
      name: 'status',
      method: 'GET',
      path: '/v2/status/:id',
      // No key needed (observed behaviour #4): the job id is the secret.
      handle({ res, url, params }) {
        const noRedirect = singleQuery(url, ['noRedirect']).noRedirect ?? null;
        if (noRedirect !== null && noRedirect !== 'true' && noRedirect !== 'false') {
          throw new HttpError(400, `noRedirect must be true or false (got ${JSON.stringify(noRedirect)})`);
        }
        const job = app.queue.get(params.id!.toLowerCase());
        if (!job) throw new HttpError(404, 'no job with this id (unknown, or finished more than 7 days ago)');
        const r = job.record;
        if (r.status === 'COMPLETED' && noRedirect !== 'true' && r.correctedFile) {
          sendJson(res, 302, r, { Location: r.correctedFile });
          return;
        }
        sendJson(res, 200, r);
      },
    },
  ];
}

/**
 * The uploaded file of a fileKey-like parameter, or 400 naming the parameter:
 * unknown to this API key (another account's ticket counts as unknown), not
 * uploaded yet, or issued for another `fileType` than the job names ("must
 * match the uploaded file type": a video sent on an image ticket is refused
 * even when `/pfc` says `fileType=video`).
 */
function uploadedFile(app: WebApiApp, owner: string, param: string, key: string, fileType: 'image' | 'video'): UploadedFile {
  const record = app.uploads.get(key, owner);
  if (!record) throw new HttpError(400, `${param} ${key} is unknown to this API key (or past its retention): request a ticket with GET /upload`);
  if (record.fileType !== fileType) {
    throw new HttpError(400, `${param} ${key} was issued by GET /upload?fileType=${record.fileType}, but the job needs fileType=${fileType}: request the ticket with the same fileType`);
  }
  if (!record.file) throw new HttpError(400, `${param} ${key} has no file yet: PUT the file to its uploadUrl first`);
  return record.file;
}

function usageSize(file: UploadedFile): string {
  if (file.dimensions) return usageSizeOf(file.dimensions.width * file.dimensions.height);
  return file.size > 100_000_000 ? 'LARGE' : 'MEDIUM';
}

/** Same file content, same effective parameters (less fileKey and cache), same preset, background and reference files. */
function cacheKey(file: UploadedFile, params: PfcParams, presetHash: string, backgroundHash: string, referenceHash: string): string {
  const { fileKey: _f, cache: _c, bgFileKey: _b, aiArtReferenceFileKey: _r, ...rest } = params;
  const sorted = Object.fromEntries(Object.entries(rest).sort(([a], [b]) => a.localeCompare(b)));
  return createHash('sha256').update(JSON.stringify([file.sha256, sorted, presetHash, backgroundHash, referenceHash])).digest('hex');
}
