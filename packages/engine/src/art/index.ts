/**
 * Public surface of AI Art (styles, characters, output size, reference
 * palette) and video correction, re-exported by the package index.
 */
export { applyAiArt, ART_WORK_PIXELS, type AiArtOptions, type PersonSegmenter } from './apply';
export { type ArtMask, renderScene } from './character';
export { createArtEngine, type ArtEngine, type ArtEngineOptions, type ArtHookContext, type VideoHookContext, type HookImage, type HookRaster } from './hooks';
export { labStats, transferPalette, type LabStats } from './palette';
export { SCENE_DESCRIPTIONS } from './scenes';
export { ALL_ART_TOKENS, renderArtSheet, type ArtSheetOptions } from './sheet';
export { ART_PIXEL_BUDGET, artDimensions, type ArtOutputSize } from './size';
export { comicsDotPitch, POP_ART_PALETTE } from './styles-ink';
export { isArtCharacter, isArtStyle, type AiArtCharacter, type AiArtStyle } from './tokens';
export { correctVideo, cubeFile, type VideoOptions, type VideoResult } from '../video/correct';
export { ffmpegPath } from '../video/ffmpeg';
export { parseProbe, probeVideo, type VideoInfo } from '../video/probe';
