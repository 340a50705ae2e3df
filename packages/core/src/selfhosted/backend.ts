/**
 * The self-hosted pipeline: colour correction on the colour-correction
 * container, then (with `removeBackground=true`) background removal on the BGR
 * container, as one call. The self-hosted equivalent of the Web API's
 * `removeBackground=true`, with the same result shape.
 */
import { readAll, type CorrectionBackend, type CorrectionResult, type CorrectOptions, type FileInput } from '../backend';
import { ParameterError } from '../errors';
import type { PfcParams } from '../contract/webapi-params';
import type { BgrSubmitOptions } from '../contract/bgr';
import { ContainerClient, type ContainerClientOptions } from '../container/client';
import { checkForContainer, containerInfo, runContainer } from '../container/backend';
import { DEFAULT_JOB_TIMEOUT_MS } from '../webapi/options';
import { BgrClient, type BgrClientOptions } from '../bgr/client';
import { bgrInfo, bytesStream } from '../bgr/backend';
import { withDeadline } from '../deadline';


export interface SelfHostedBackendOptions {
  /** The colour-correction container: a client, or the options to make one. */
  container: ContainerClient | ContainerClientOptions;
  /** The background-removal container: a client, or the options to make one. */
  bgr: BgrClient | BgrClientOptions;
  /** Submit options of every BGR job (mode, preprocessing, postprocessing, preprocessingConfig). */
  bgrSubmit?: BgrSubmitOptions;
}

/** A `CorrectionBackend` on both self-hosted containers. */
export function createSelfHostedBackend(options: SelfHostedBackendOptions): CorrectionBackend {
  const container = options.container instanceof ContainerClient ? options.container : new ContainerClient(options.container);
  const bgr = options.bgr instanceof BgrClient ? options.bgr : new BgrClient(options.bgr);
  const check = (params: PfcParams) => checkForContainer(params, { backgroundRemoval: true });
  return {
    kind: 'container+bgr',
    validate: check,
    async correct(input: FileInput, params: PfcParams, opts: CorrectOptions = {}): Promise<CorrectionResult> {
      opts.onProgress?.({ phase: 'validating' });
      const c = check(params);
      if (c.errors.length > 0) throw new ParameterError(c.errors);
      return withDeadline(opts.signal, opts.timeoutMs ?? DEFAULT_JOB_TIMEOUT_MS, 'self-hosted correction', async (signal) => {
        const run = await runContainer(container, input, c, opts, signal);
        const warnings = run.correction.originNote ? [...c.warnings, run.correction.originNote] : c.warnings;
        if (c.params.removeBackground !== true) {
          opts.onProgress?.({ phase: 'done' });
          return { body: run.body, contentType: run.contentType, backend: 'container', warnings, info: containerInfo(run.correction) };
        }
        // The BGR container needs the whole file in a form; the corrected PNG is read once.
        const corrected = await readAll(run.body);
        const r = await bgr.removeBackground(corrected, {
          ...options.bgrSubmit,
          signal,
          contentType: 'image/png',
          fileName: pngName(opts.fileName),
          onProgress: (p) => {
            if (p.phase !== 'uploading') opts.onProgress?.({ phase: p.phase });
          },
        });
        return {
          body: bytesStream(r.bytes),
          contentType: r.contentType,
          backend: 'container+bgr',
          warnings: [...warnings, ...r.warnings],
          info: { ...containerInfo(run.correction), ...bgrInfo(r) },
        };
      });
    },
  };
}

function pngName(fileName: string | undefined): string {
  const base = (fileName ?? 'image').replace(/^.*[\\/]/, '').replace(/\.[^.]*$/, '');
  return `${base || 'image'}.png`;
}
