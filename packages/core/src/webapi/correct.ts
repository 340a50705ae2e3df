/** The one-call flow of the Web API: validate → upload → start → wait → open the result. */
import type { CorrectionResult, CorrectOptions, FileInput } from '../backend';
import { withDeadline } from '../deadline';
import { ParameterError, TimeoutError } from '../errors';
import { checkInput } from '../contract/webapi-limits';
import { validatePfcParams, type ParamIssue, type PfcParams } from '../contract/webapi-params';
import type { JobRecord } from '../contract/webapi-types';
import { inputFacts } from './input';
import type { JobHandle, Jobs } from './jobs';
import type { WebApiContext } from './options';
import type { Uploads } from './uploads';

/**
 * Correct one file on the Web API. Everything that can be checked is checked
 * before the upload (parameters, rules, input type and size limits). The
 * overall limit (`timeoutMs`, default the client's `jobTimeoutMs`) runs from
 * the upload to the job's end, less any wait in `options.jobSlot` (which is
 * held from the job's start to its end); the result body then stays linked to
 * `signal` and to the per-read inactivity timeout only.
 */
export async function correctOnWebApi(
  ctx: WebApiContext,
  uploads: Uploads,
  jobs: Jobs,
  input: FileInput,
  params: PfcParams,
  options: CorrectOptions = {},
): Promise<CorrectionResult> {
  const progress = options.onProgress ?? (() => undefined);
  progress({ phase: 'validating' });
  const facts = inputFacts(input, options);
  const fileType = resolveFileType(params, options, facts.contentType);
  const check = validatePfcParams(params as Record<string, unknown>, { requireFileKey: false });
  const issues: ParamIssue[] = [...check.errors, ...fileType.issues, ...checkInput({ fileType: fileType.value, ...facts }, check.params)];
  if (params.fileKey !== undefined) {
    issues.push({ param: 'fileKey', message: 'fileKey is set by correct() from its own upload; to use an uploaded file call jobs.start()' });
  }
  if (issues.length > 0) throw new ParameterError(issues);

  const timeoutMs = options.timeoutMs ?? ctx.jobTimeoutMs;
  const label = 'correction (upload to result)';
  const begun = Date.now();
  const fileKey = await withDeadline(options.signal, timeoutMs, label, async (signal) => {
    progress({ phase: 'uploading' });
    return uploads.upload(input, { ...facts, fileType: fileType.value, signal });
  });
  // The host's wait for a job slot is not the job's time: the limit resumes after it.
  const uploadMs = Date.now() - begun;
  const release = options.jobSlot ? await options.jobSlot(options.signal) : undefined;
  let job: JobRecord;
  let handle: JobHandle;
  try {
    ({ job, handle } = await withDeadline(options.signal, remaining(timeoutMs, uploadMs), label, async (signal) => {
      const started = await jobs.start({ ...check.params, fileKey, ...(fileType.value === 'video' ? { fileType: 'video' } : {}) }, { signal });
      progress({ phase: 'queued' });
      const done = await jobs.wait(started, {
        signal,
        timeoutMs: Infinity, // the enclosing deadline applies
        onStatus: (j) => progress({ phase: j.status === 'PENDING' ? 'queued' : 'processing', job: j }),
      });
      return { job: done, handle: started };
    }).catch((err: unknown) => {
      // The deadline ran out: reported as the caller's whole limit, which is what it was part of.
      throw err instanceof TimeoutError && err.request === label ? new TimeoutError(label, timeoutMs) : err;
    }));
  } finally {
    release?.();
  }

  progress({ phase: 'downloading', job });
  const file = await jobs.download(job, { signal: options.signal });
  progress({ phase: 'done', job });
  return {
    body: file.body,
    contentType: file.contentType,
    backend: 'web',
    job,
    warnings: handle.warnings,
    info: { jobId: handle.jobId, statusEndpoint: handle.statusEndpoint, fileKey, ...(file.size !== undefined ? { size: file.size } : {}) },
  };
}

/** What is left of a limit after `usedMs` (at least 1 ms); a limit that is no deadline stays one. */
function remaining(timeoutMs: number, usedMs: number): number {
  return Number.isFinite(timeoutMs) && timeoutMs > 0 ? Math.max(1, timeoutMs - usedMs) : timeoutMs;
}

/** `fileType` from the parameters, the options or the MIME type; a conflict is an error. */
function resolveFileType(
  params: PfcParams,
  options: CorrectOptions,
  contentType: string | undefined,
): { value: 'image' | 'video'; issues: ParamIssue[] } {
  const fromParams = params.fileType;
  const fromOptions = options.fileType;
  if (fromParams !== undefined && fromOptions !== undefined && fromParams !== fromOptions) {
    return { value: fromParams, issues: [{ param: 'fileType', message: `fileType is ${fromParams} in the parameters but ${fromOptions} in the options` }] };
  }
  const explicit = fromParams ?? fromOptions;
  if (explicit === 'image' || explicit === 'video') return { value: explicit, issues: [] };
  return { value: contentType?.toLowerCase().startsWith('video/') ? 'video' : 'image', issues: [] };
}
