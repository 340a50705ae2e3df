/**
 * The colour-correction container as a `CorrectionBackend`: Web API parameters
 * in, the same `CorrectionResult` shape as the Web API path out.
 */
import type { CorrectionBackend, CorrectionResult, CorrectOptions, FileInput } from '../backend';
import { ParameterError } from '../errors';
import { validatePfcParams, type ParamCheck, type PfcParams } from '../contract/webapi-params';
import { validateContainerParams } from '../contract/container';
import { withDeadline } from '../deadline';
import { DEFAULT_JOB_TIMEOUT_MS } from '../webapi/options';

import { Fleet, onInstanceWhole } from '../fleet/fleet';
import { ContainerClient, containerContentType, type ContainerClientOptions, type ContainerCorrection } from './client';
import { pfcToContainerParams, type MappingOptions } from './from-pfc-params';

export interface ContainerBackendOptions {
  /** A client, the options to make one, or a fleet of instances (`Fleet`): each file goes to one instance, moved to another if that one fails. */
  container: ContainerClient | ContainerClientOptions | Fleet<ContainerClient>;
}

/**
 * Check Web API parameters for a container-based backend: the Web API's own
 * rules, then what the container can honour (errors for picture-changing
 * features it lacks, warnings for the rest).
 */
export function checkForContainer(params: PfcParams, mapping: MappingOptions = {}): ParamCheck & { container: ReturnType<typeof pfcToContainerParams>['params'] } {
  const web = validatePfcParams(params as Record<string, unknown>);
  const mapped = pfcToContainerParams(web.params, mapping);
  const own = validateContainerParams(mapped.params as Record<string, unknown>);
  return {
    params: web.params,
    container: own.params,
    errors: [...web.errors, ...mapped.errors, ...own.errors],
    // The Web API check already warns about several resize parameters.
    warnings: [...web.warnings, ...mapped.warnings, ...own.warnings.filter((w) => !w.startsWith('several resize parameters'))],
  };
}

/** Facts about a container run, for `CorrectionResult.info`. */
export function containerInfo(c: ContainerCorrection): Record<string, unknown> {
  return { imageKey: c.imageKey, scene: c.scene, correctedUrl: c.correctedUrl, downloadUrl: c.downloadUrl, originRewritten: c.originRewritten };
}

/**
 * Upload, correct and open the download: the container part of both the
 * container backend and the self-hosted pipeline.
 */
export async function runContainer(
  client: ContainerClient,
  input: FileInput,
  check: ReturnType<typeof checkForContainer>,
  options: CorrectOptions,
  signal: AbortSignal,
): Promise<{ correction: ContainerCorrection; body: ReadableStream<Uint8Array>; contentType: string | undefined }> {
  const contentType = await containerContentType(input, options);
  const call = { signal, ...(options.onRetry ? { onRetry: options.onRetry } : {}) };
  options.onProgress?.({ phase: 'uploading' });
  const { imageKey } = await client.upload(input, { contentType, ...call });
  options.onProgress?.({ phase: 'processing' });
  const correction = await client.correct(imageKey, check.container, call);
  options.onProgress?.({ phase: 'downloading' });
  const file = await client.download(correction, call);
  return { correction, body: file.body, contentType: file.contentType };
}

/** What one container run produced: the container's answer and the corrected file. */
export interface ContainerRun {
  correction: ContainerCorrection;
  body: ReadableStream<Uint8Array>;
  contentType: string | undefined;
  /** Facts added to (or replacing) `containerInfo` in the result's `info`. */
  info?: Record<string, unknown>;
  /** Notes for the user besides the parameter warnings (e.g. an instance of a fleet that failed on the way). */
  notes?: string[];
}

/**
 * A container `CorrectionBackend` around `run`, which moves the bytes (over
 * HTTP, or through mounted folders): the parameter check before anything is
 * sent, the per-job deadline (`timeoutMs`, default {@link DEFAULT_JOB_TIMEOUT_MS}),
 * progress and the result shape are the same for every way of moving them.
 */
export function containerBackendWith(
  run: (input: FileInput, check: ReturnType<typeof checkForContainer>, options: CorrectOptions, signal: AbortSignal) => Promise<ContainerRun>,
): CorrectionBackend {
  return {
    kind: 'container',
    validate: (params) => checkForContainer(params),
    async correct(input: FileInput, params: PfcParams, opts: CorrectOptions = {}): Promise<CorrectionResult> {
      opts.onProgress?.({ phase: 'validating' });
      const check = checkForContainer(params);
      if (check.errors.length > 0) throw new ParameterError(check.errors);
      const r = await withDeadline(opts.signal, opts.timeoutMs ?? DEFAULT_JOB_TIMEOUT_MS, 'container correction', (signal) => run(input, check, opts, signal));
      opts.onProgress?.({ phase: 'done' });
      return {
        body: r.body,
        contentType: r.contentType,
        backend: 'container',
        warnings: [...check.warnings, ...(r.correction.originNote ? [r.correction.originNote] : []), ...(r.notes ?? [])],
        info: { ...containerInfo(r.correction), ...r.info },
      };
    },
  };
}

/** A `CorrectionBackend` on the self-hosted colour-correction container. */
export function createContainerBackend(options: ContainerBackendOptions): CorrectionBackend {
  const target = options.container instanceof ContainerClient || options.container instanceof Fleet ? options.container : new ContainerClient(options.container);
  return containerBackendWith(async (input, check, opts, signal) => {
    const r = await onInstanceWhole(target, (client, s) => runContainer(client, input, check, opts, s ?? signal), signal);
    return { ...r.value, ...(r.instance ? { info: { instance: r.instance } } : {}), notes: r.notes };
  });
}
