/**
 * @pfc/engine: the offline imaging engine behind the emulator and the
 * containers' emulations. Pure functions over buffers; no HTTP, no storage.
 */
export { correctImage } from './correct';
export type { CorrectionStep, StepTimings } from './timings';
export type { CorrectOptions, CorrectResult } from './types';
export { EngineError, type EngineErrorCode } from './errors';
export { CORRECTION_LIMITS, UPSCALE_LIMITS, BACKGROUND_LIMITS, checkCorrectionLimits } from './limits';
export { type ColourParams, COLOUR_PARAM_RANGES, NEUTRAL_COLOUR_PARAMS } from './colour/params';
export * from './background/index';
export * from './retouch/index';
export * from './upscale/index';
export { createImagingEngine, type ImagingHooks, type ImagingEngineOptions, type ImageDetection } from './imaging';
export { applyLook, createLookEngine, type LookOptions, type LookResult, type FaceFinder, type LookImage, type LookHookContext } from './look';
export { correctRaster, ANALYSIS_SIDE, type ColourResult, type CorrectRasterOptions } from './colour/correct';
export { planCorrection, castCorrectionDeg, type PlanDiagnostics, type CastPolicy, type StillInputs } from './colour/plan';
export { type FinishAmounts, type FinishNeed, type FinishStep } from './colour/finish';
export { meanDeltaE2000, ciede2000, srgbToLab, type Lab } from './colour/deltaE';
export { SCENE, sceneName, type SceneId, type SceneName } from './scene/categories';
export { detectScene, type SceneSignals } from './scene/detect';
export { BUILT_IN_GROUPS, PRESET_GROUPS, groupParams, isBuiltInGroup, type BuiltInGroup } from './presets/builtin';
export { parsePresetFile, formatPresetFile, PRESET_FORMAT, type CustomPreset, type PresetParse } from './presets/custom';
export { resolvePreset, type ResolvedPreset } from './presets/resolve';
export { decodeRaster, decodedToSrgb, pointSample, thumbnailRaster, type Raster } from './image/raster';
export { encodeRaster, type OutputFormat, type EncodeOptions } from './image/encode';
export { sharpenSpec, sharpenRaster, type SharpenSpec } from './image/sharpen';
export { setBandHelpers } from './image/bands';
export { targetDimensions } from './image/resize';
export { setExifThumbnail, updateExifThumbnail, readExifThumbnail, EXIF_THUMBNAIL_SIDE } from './image/exif-thumbnail';
export { detectFaces, type FaceDetectOptions, segmentPerson, createDetectionEngine, closeEngineWorkers, closeVisionWorkers, autoCropBox, headTop, AUTOCROP_TYPES, type DetectionEngine, type VisionImage, type Mask, type AutoCropParams } from './vision';
export * from './art/index';
