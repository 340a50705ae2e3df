/** The one-call flow of the Web API: validate → upload → start → wait → open the result. */
import type { CorrectionResult, CorrectOptions, FileInput } from '../backend';
import { withDeadline } from '../deadline';
import { APIError, JobLostError, NotFoundError, ParameterError, RateLimitError, TimeoutError } from '../errors';
import { checkInput } from '../contract/webapi-limits';
import { validatePfcParams, type ParamIssue, type PfcParams } from '../contract/webapi-params';
import type { JobRecord } from '../contract/webapi-types';
import { inputFacts } from './input';
import type { JobHandle, Jobs } from './jobs';
import type { WebApiContext } from './options';
import type { Uploads } from './uploads';
import { refusalDelayMs } from './wait';

/**
 * Correct one file on the Web API. Everything that can be checked is checked
 * before the upload (parameters, rules, input type and size limits). The
 * overall limit (`timeoutMs`, default the client's `jobTimeoutMs`) runs from
 * the upload to the job's end, less any wait in `options.jobSlot` (which is
 * held from the job's start to its end); the result body then stays linked to
 * `signal` and to the per-read inactivity timeout only. A start refused for
 * the account's limits is waited out and repeated (see `admittedJob`).
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

  const budget = new JobBudget(options.signal, options.timeoutMs ?? ctx.jobTimeoutMs);
  const told = options.onRetry ? { onRetry: options.onRetry } : {};
  const fileKey = await budget.run(async (signal) => {
    progress({ phase: 'uploading' });
    const ticket = await uploads.ticket(fileType.value, { signal, ...told });
    await lostIfNotFound(uploads.put(ticket.uploadUrl, input, { ...facts, signal, ...told }));
    return ticket.fileKey;
  });
  const startParams: PfcParams = { ...check.params, fileKey, ...(fileType.value === 'video' ? { fileType: 'video' } : {}) };
  const { job, handle } = await admittedJob(ctx, jobs, startParams, budget, options, progress);

  progress({ phase: 'downloading', job });
  const file = await lostIfNotFound(jobs.download(job, { signal: options.signal, ...told }));
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

/**
 * Start the job and wait for its end, in a job slot when the host gives them.
 * A start refused with 429 (the account's limit of jobs in progress, or of
 * requests) is waited out and made again with the same `fileKey`: nothing is
 * uploaded again and the host's attempts at the file are not spent. It is
 * bounded by the overall limit and the signal, not by a retry count, because
 * a refusal says the job will be taken once the account's other jobs end.
 *
 * This lives here, not in `Jobs.start`, because of the slot: a slot held
 * through a refusal counts as a job the service does not have, keeps a file
 * that could start (once a running job ends) waiting, and tells the host's
 * adaptive limit nothing. So the slot goes back marked `'refused'` (an
 * `AdaptiveLimit` lowers itself to the jobs the service holds), and the file
 * asks for one again after `Retry-After`.
 */
async function admittedJob(
  ctx: WebApiContext,
  jobs: Jobs,
  params: PfcParams,
  budget: JobBudget,
  options: CorrectOptions,
  progress: NonNullable<CorrectOptions['onProgress']>,
): Promise<{ job: JobRecord; handle: JobHandle }> {
  const told = options.onRetry ? { onRetry: options.onRetry } : {};
  for (let refusals = 1; ; refusals++) {
    const release = options.jobSlot ? await options.jobSlot(options.signal) : undefined;
    let refusal: RateLimitError | undefined;
    try {
      const handle = await budget.run((signal) => jobs.start(params, { signal, retryRateLimited: false, ...told }).catch(uploadLostAs(params.fileKey)).catch(refusedAs));
      if (handle instanceof RateLimitError) {
        refusal = handle;
      } else {
        progress({ phase: 'queued' });
        const job = await budget.run((signal) => lostIfNotFound(jobs.wait(handle, {
          signal,
          timeoutMs: Infinity, // the budget applies
          ...(options.slotWanted ? { urgent: options.slotWanted } : {}),
          ...told,
          onStatus: (j) => progress({ phase: j.status === 'PENDING' ? 'queued' : 'processing', job: j }),
        })));
        return { job, handle };
      }
    } finally {
      release?.(refusal ? 'refused' : undefined);
    }
    const delay = refusalDelayMs(ctx, refusal);
    options.onRetry?.({ request: refusal.request, attempt: refusals, delayMs: delay, error: refusal, rateLimit: 'jobs' });
    await budget.run((signal) => ctx.sleep(delay, signal));
  }
}

/**
 * A step on what the correction made itself (the PUT to its ticket's address, the status and the result
 * of the job it started), with a 404 thrown as the {@link JobLostError} it is: the service gave the ticket
 * or started the job, so the address is right, and it has forgotten the upload or the job since. (Not the
 * job's start: a 404 there may name a preset that does not exist.)
 */
async function lostIfNotFound<T>(step: Promise<T>): Promise<T> {
  try {
    return await step;
  } catch (err) {
    throw err instanceof NotFoundError && !(err instanceof JobLostError) ? JobLostError.of(err) : err;
  }
}

/**
 * A job start refused (400 or 404) naming the `fileKey` of the correction's own upload, thrown as the
 * {@link JobLostError} it is: the service took that upload and has forgotten it since. Anything else —
 * a refusal of a parameter, of a preset — is thrown on as it is.
 */
function uploadLostAs(fileKey: string | undefined): (err: unknown) => never {
  return (err) => {
    const refusesUpload = err instanceof APIError && (err.status === 400 || err.status === 404) && fileKey !== undefined && err.message.includes(fileKey);
    throw refusesUpload ? JobLostError.of(err) : err;
  };
}

/** A 429 as a value (the start was refused), anything else thrown on. */
function refusedAs(err: unknown): RateLimitError {
  if (err instanceof RateLimitError) return err;
  throw err;
}

/**
 * The overall limit of one correction (upload to the job's end) over several
 * steps, with the waits for a job slot between them left out: each step gets
 * what is left. A deadline that runs out is reported as the whole limit.
 */
class JobBudget {
  static readonly label = 'correction (upload to result)';
  #usedMs = 0;

  constructor(
    private readonly signal: AbortSignal | undefined,
    private readonly timeoutMs: number,
  ) {}

  async run<T>(step: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const begun = Date.now();
    try {
      return await withDeadline(this.signal, this.#remaining(), JobBudget.label, step);
    } catch (err) {
      throw err instanceof TimeoutError && err.request === JobBudget.label ? new TimeoutError(JobBudget.label, this.timeoutMs) : err;
    } finally {
      this.#usedMs += Date.now() - begun;
    }
  }

  /** What is left (at least 1 ms); a limit that is no deadline stays one. */
  #remaining(): number {
    const t = this.timeoutMs;
    return Number.isFinite(t) && t > 0 ? Math.max(1, t - this.#usedMs) : t;
  }
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
