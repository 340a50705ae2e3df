/**
 * Web API parameters (`PfcParams`) onto the colour-correction container's query,
 * so a host's settings work on both backends. The rule (documented in the core
 * README): a parameter that would change the picture and that the container
 * cannot apply is an error before upload (`ParameterError`), so a host never
 * gets a different picture than it asked for; one that changes nothing in the
 * picture (metadata, caching hints, detection data) becomes a warning.
 */
import type { ContainerParams } from '../contract/container';
import type { ParamIssue, PfcParams } from '../contract/webapi-params';

export interface ContainerParamMapping {
  params: ContainerParams;
  errors: ParamIssue[];
  warnings: string[];
}

export interface MappingOptions {
  /**
   * A background-removal step follows the container (the self-hosted pipeline):
   * `removeBackground=true` with a transparent background is honoured there.
   */
  backgroundRemoval?: boolean;
}

const SAME_NAME = ['outputQuality', 'width', 'height', 'long', 'short', 'scale', 'autocrop', 'autocropSize', 'autocropX', 'autocropY', 'cropARW', 'cropARH', 'autocropTopHeadGap', 'autocropType', 'skip'] as const;

/** Picture-changing Web API features the container has no equivalent for. */
const UNSUPPORTED: readonly { param: keyof PfcParams; when: (p: PfcParams) => boolean; what: string }[] = [
  { param: 'fileType', when: (p) => p.fileType === 'video', what: 'video (it corrects JPEG and PNG images only)' },
  { param: 'aiArt', when: (p) => p.aiArt !== undefined, what: 'AI Art' },
  { param: 'aiArtOutputSize', when: (p) => p.aiArtOutputSize !== undefined, what: 'AI Art' },
  { param: 'aiArtReferenceFileKey', when: (p) => p.aiArtReferenceFileKey !== undefined, what: 'AI Art' },
  { param: 'removeGlares', when: (p) => p.removeGlares === true, what: 'glasses glare removal' },
  { param: 'removeBlemish', when: (p) => p.removeBlemish === true, what: 'AI blemish removal' },
  { param: 'autocropDetectOnly', when: (p) => p.autocropDetectOnly === true, what: 'detect-only auto crop (it returns no crop coordinates)' },
];

/** Replacement backgrounds: the BGR container returns a transparent PNG and core does no compositing. */
const BACKGROUND_REPLACEMENT = ['bgColor', 'bgFileKey', 'bgGenerativePrompt', 'bgShadow'] as const;

/**
 * Map checked Web API parameters onto the container's query. Run
 * `validatePfcParams` first; this adds the container's own limits.
 */
export function pfcToContainerParams(p: PfcParams, options: MappingOptions = {}): ContainerParamMapping {
  const errors: ParamIssue[] = [];
  const warnings: string[] = [];
  const out: ContainerParams = {};
  const backend = options.backgroundRemoval ? 'the self-hosted backend' : 'the colour-correction container';

  if (p.preset !== undefined && p.preset !== 'Universal') {
    out.preset = p.preset;
    if (p.preset === 'none') {
      warnings.push('preset=none: the container has no built-in "none"; it needs a none.preset file in its /presets (otherwise unknownPresetMessage)');
    }
  }
  if (p.outputType === 'jpg') out.outputType = 'JPEG';
  else if (p.outputType === 'png') out.outputType = 'PNG';
  for (const k of SAME_NAME) {
    if (p[k] !== undefined) (out as Record<string, unknown>)[k] = p[k];
  }

  for (const u of UNSUPPORTED) {
    if (u.when(p)) errors.push({ param: u.param, message: `${u.param}: ${backend} cannot apply ${u.what}; use the Web API backend` });
  }

  if (p.removeBackground === true) {
    if (!options.backgroundRemoval) {
      errors.push({ param: 'removeBackground', message: 'removeBackground: the colour-correction container cannot remove backgrounds; use the self-hosted backend (container + BGR) or the Web API' });
    } else {
      for (const k of BACKGROUND_REPLACEMENT) {
        const v = p[k];
        if (v === undefined || (k === 'bgColor' && String(v).toLowerCase() === 'transparent')) continue;
        errors.push({ param: k, message: `${k}: the self-hosted backend produces a transparent background only; use the Web API for replacement backgrounds` });
      }
      if (p.outputType === 'jpg') {
        errors.push({ param: 'outputType', message: 'outputType: jpg cannot hold a transparent background; use png or omit outputType with removeBackground=true' });
      }
      // A lossless intermediate: the matting step should not see JPEG artefacts.
      out.outputType = 'PNG';
    }
  }

  if (p.resize !== undefined && p.resize !== 'auto') warnings.push(`resize=${p.resize}: the container has no AI upscaling models; it resizes classically`);
  if (p.preserveMetadata === false) warnings.push('preserveMetadata=false: the container keeps its own metadata handling; not applied');
  if (p.updateThumbnail === true) warnings.push('updateThumbnail=true: the container does not regenerate embedded thumbnails; not applied');
  if (p.includeDetectionData === true) warnings.push('includeDetectionData=true: the container returns only the scene (in info.scene), no detection data');
  return { params: out, errors, warnings };
}
