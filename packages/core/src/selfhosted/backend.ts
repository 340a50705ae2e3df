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
import { Fleet, onInstance, onInstanceWhole } from '../fleet/fleet';


export interface SelfHostedBackendOptions {
  /** The colour-correction container: a client, the options to make one, or a fleet of instances. */
  container: ContainerClient | ContainerClientOptions | Fleet<ContainerClient>;
  /** The background-removal container: a client, the options to make one, or a fleet of instances. */
  bgr: BgrClient | BgrClientOptions | Fleet<BgrClient>;
  /** Submit options of every BGR job (mode, preprocessing, postprocessing, preprocessingConfig). */
  bgrSubmit?: BgrSubmitOptions;
}

/** A `CorrectionBackend` on both self-hosted containers. */
export function createSelfHostedBackend(options: SelfHostedBackendOptions): CorrectionBackend {
  const container = options.container instanceof ContainerClient || options.container instanceof Fleet ? options.container : new ContainerClient(options.container);
  const bgr = options.bgr instanceof BgrClient || options.bgr instanceof Fleet ? options.bgr : new BgrClient(options.bgr);
  const check = (params: PfcParams) => checkForContainer(params, { backgroundRemoval: true });
  return {
    kind: 'container+bgr',
    validate: check,
    async correct(input: FileInput, params: PfcParams, opts: CorrectOptions = {}): Promise<CorrectionResult> {
      opts.onProgress?.({ phase: 'validating' });
      const c = check(params);
      if (c.errors.length > 0) throw new ParameterError(c.errors);
      return withDeadline(opts.signal, opts.timeoutMs ?? DEFAULT_JOB_TIMEOUT_MS, 'self-hosted correction', async (signal) => {
        const colour = await onInstanceWhole(container, (client, s) => runContainer(client, input, c, opts, s ?? signal), signal);
        const run = colour.value;
        const warnings = [...c.warnings, ...(run.correction.originNote ? [run.correction.originNote] : []), ...colour.notes];
        const colourInfo = { ...containerInfo(run.correction), ...(colour.instance ? { instance: colour.instance } : {}) };
        if (c.params.removeBackground !== true) {
          opts.onProgress?.({ phase: 'done' });
          return { body: run.body, contentType: run.contentType, backend: 'container', warnings, info: colourInfo };
        }
        // The BGR container needs the whole file in a form; the corrected PNG is read once.
        const corrected = await readAll(run.body);
        const removal = await onInstance(bgr, (client, s) =>
          client.removeBackground(corrected, {
            ...options.bgrSubmit,
            signal: s ?? signal,
            contentType: 'image/png',
            fileName: pngName(opts.fileName),
            ...(opts.onRetry ? { onRetry: opts.onRetry } : {}),
            onProgress: (p) => {
              if (p.phase !== 'uploading') opts.onProgress?.({ phase: p.phase });
            },
          }), signal);
        const r = removal.value;
        return {
          body: bytesStream(r.bytes),
          contentType: r.contentType,
          backend: 'container+bgr',
          warnings: [...warnings, ...r.warnings, ...removal.notes],
          info: { ...colourInfo, ...bgrInfo(r), ...(removal.instance ? { bgrInstance: removal.instance } : {}) },
        };
      });
    },
  };
}

function pngName(fileName: string | undefined): string {
  const base = (fileName ?? 'image').replace(/^.*[\\/]/, '').replace(/\.[^.]*$/, '');
  return `${base || 'image'}.png`;
}
