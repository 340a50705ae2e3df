/**
 * The background-removal container alone as a `CorrectionBackend`: the
 * self-hosted equivalent of the Web API's `preset=none&removeBackground=true`.
 */
import type { CorrectionBackend, CorrectionResult, CorrectOptions, FileInput } from '../backend';
import { ParameterError } from '../errors';
import type { BgrSubmitOptions } from '../contract/bgr';
import { validatePfcParams, type ParamCheck, type ParamIssue, type PfcParams } from '../contract/webapi-params';
import { pfcToContainerParams } from '../container/from-pfc-params';
import { withDeadline } from '../deadline';
import { DEFAULT_JOB_TIMEOUT_MS } from '../webapi/options';

import { Fleet, onInstance } from '../fleet/fleet';
import { BgrClient, type BgrClientOptions, type BgrResult } from './client';

export interface BgrBackendOptions {
  /** A client, the options to make one, or a fleet of instances (`Fleet`; each instance activates its own licence). */
  bgr: BgrClient | BgrClientOptions | Fleet<BgrClient>;
  /** Submit options of every job (mode, preprocessing, postprocessing, preprocessingConfig). */
  submit?: BgrSubmitOptions;
}

const PICTURE_CHANGING = ['width', 'height', 'long', 'short', 'scale', 'autocrop', 'outputQuality'] as const;

/** Web API parameters checked for the BGR container alone (no colour correction, no resizing). */
export function checkForBgr(params: PfcParams): ParamCheck {
  const web = validatePfcParams(params as Record<string, unknown>);
  const p = web.params;
  const mapped = pfcToContainerParams({ ...p, removeBackground: true }, { backgroundRemoval: true });
  const errors: ParamIssue[] = [...web.errors, ...mapped.errors];
  const warnings = [...web.warnings];
  if (p.removeBackground === false) errors.push({ param: 'removeBackground', message: 'removeBackground: the bgr backend only removes backgrounds; removeBackground=false leaves it nothing to do' });
  if (p.preset !== undefined && p.preset !== 'none' && p.preset !== 'Universal') {
    errors.push({ param: 'preset', message: `preset: the bgr backend does no colour correction; use the self-hosted backend (container + BGR) for preset ${JSON.stringify(p.preset)}` });
  } else if (p.preset !== 'none') {
    warnings.push('the bgr backend removes the background only; no colour correction is applied (as with preset=none)');
  }
  for (const k of PICTURE_CHANGING) {
    if (p[k] !== undefined) errors.push({ param: k, message: `${k}: the bgr backend returns the input's size without correction; use the self-hosted backend (container + BGR)` });
  }
  // Warnings about resize models, metadata and thumbnails apply here as on the container.
  warnings.push(...mapped.warnings.filter((w) => !w.startsWith('preset=none')));
  return { params: p, errors, warnings };
}

/** Facts about a BGR run, for `CorrectionResult.info`. */
export function bgrInfo(r: BgrResult): Record<string, unknown> {
  return { processId: r.processId, mode: r.check.mode, processingTime: r.check.processing_time, originalName: r.check.original_name, removed: r.removed };
}

/** A `CorrectionBackend` on the self-hosted background-removal container. */
export function createBgrBackend(options: BgrBackendOptions): CorrectionBackend {
  const target = options.bgr instanceof BgrClient || options.bgr instanceof Fleet ? options.bgr : new BgrClient(options.bgr);
  return {
    kind: 'bgr',
    validate: checkForBgr,
    async correct(input: FileInput, params: PfcParams, opts: CorrectOptions = {}): Promise<CorrectionResult> {
      opts.onProgress?.({ phase: 'validating' });
      const check = checkForBgr(params);
      if (check.errors.length > 0) throw new ParameterError(check.errors);
      const { value: r, instance, notes } = await withDeadline(opts.signal, opts.timeoutMs ?? DEFAULT_JOB_TIMEOUT_MS, 'background removal', (signal) =>
        onInstance(target, (client, s) =>
          client.removeBackground(input, {
            ...options.submit,
            signal: s ?? signal,
            fileName: opts.fileName,
            contentType: opts.contentType,
            ...(opts.onRetry ? { onRetry: opts.onRetry } : {}),
            onProgress: (p) => opts.onProgress?.({ phase: p.phase }),
          }), signal),
      );
      return { body: bytesStream(r.bytes), contentType: r.contentType, backend: 'bgr', warnings: [...check.warnings, ...r.warnings, ...notes], info: { ...bgrInfo(r), ...(instance ? { instance } : {}) } };
    },
  };
}

/** A stream over bytes already in memory. */
export function bytesStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(c) {
      c.enqueue(bytes);
      c.close();
    },
  });
}
