/**
 * The container's image step: one function, `correctContainerImage`, so the
 * imaging engine (`@pfc/engine`) plugs in at one place. Geometry, look and
 * encoding are the Web API emulator's `processImage` (same engine seam); this
 * adds what only the container has: licence behaviour, skip modes, EXIF
 * software skipping, output colour space and the `scene` answer.
 */
import { canonicalOutputType, type ContainerParams, type ContainerSkipMode, type PfcParams } from '@pfc/core';
import exifReader from 'exif-reader';
import sharp, { type Metadata } from 'sharp';
import type { ImagingEngine } from '../engine';
import type { EmulatorLimits } from '../options';
import { processImage } from '../webapi/process';
import { ContainerFailure } from './files';

export interface ContainerImageContext {
  limits: EmulatorLimits;
  engine?: ImagingEngine | undefined;
  /** Bytes of `/presets/<preset>.preset` when a preset was named. */
  presetFile?: Buffer | undefined;
  /** Path of the ICC profile in `/presets` named by `outputColorSpace`. */
  iccProfilePath?: string | undefined;
  /** Default skip mode (PFC_SKIP_MODE). */
  skipMode: ContainerSkipMode;
  /** Default EXIF software list (PFC_SKIP_EXIF_SOFTWARE). */
  skipExifSoftware: readonly string[];
  /** Licence files valid: without, the output is the input, byte for byte. */
  licensed: boolean;
}

export interface ContainerImageResult {
  output: Buffer;
  extension: 'jpg' | 'png';
  /** Detected scene; -1 when not detected (always without an engine that detects). */
  scene: number;
  /** Why colour correction was skipped, when it was. */
  skipped?: string;
}

/**
 * Entropy (bits) below which an image counts as clipart for the skip modes: a
 * heuristic (flat-colour graphics measure about 1–4 bits, photographs 6–7.5).
 */
export const CLIPART_ENTROPY_BITS = 4;

export async function correctContainerImage(input: Buffer, p: ContainerParams, ctx: ContainerImageContext): Promise<ContainerImageResult> {
  let meta: Metadata;
  try {
    meta = await sharp(input).metadata();
  } catch (err) {
    throw new ContainerFailure('processingPFCErrorMessage', `the image could not be read: ${(err as Error).message}`);
  }
  const inputExt = meta.format === 'png' ? 'png' : 'jpg';
  if (!ctx.licensed) return { output: input, extension: inputExt, scene: -1, skipped: 'no valid licence' };

  const skipped = (await softwareSkip(meta, listOf(p.skipExifSoftware) ?? ctx.skipExifSoftware)) ?? (await clipartSkip(input, p, ctx.skipMode));
  const target: 'jpg' | 'png' = p.outputType ? (canonicalOutputType(p.outputType) === 'PNG' ? 'png' : 'jpg') : inputExt;
  const convertsSpace = p.outputColorSpace !== undefined && p.outputColorSpace !== 'original';
  const params: PfcParams = {
    ...(skipped ? { preset: 'none' } : p.preset !== undefined ? { preset: p.preset } : {}),
    // The engine's own skip rule (its scene detector's clipart test) follows the container's skip mode.
    ...(skipped ? {} : { skip: p.skip ?? ctx.skipMode }),
    // A lossless intermediate when the colour space is converted afterwards.
    outputType: convertsSpace ? 'png' : target,
    ...(p.outputQuality !== undefined ? { outputQuality: p.outputQuality } : {}),
    ...pick(p, ['width', 'height', 'long', 'short', 'scale', 'autocrop', 'autocropSize', 'autocropX', 'autocropY', 'cropARW', 'cropARH', 'autocropTopHeadGap', 'autocropType']),
    ...(ctx.engine?.detect ? { includeDetectionData: true } : {}),
  };
  let result;
  try {
    result = await processImage(input, params, { limits: ctx.limits, engine: ctx.engine, presetFile: ctx.presetFile, api: 'container' });
  } catch (err) {
    throw new ContainerFailure('processingPFCErrorMessage', `processing failed: ${(err as Error).message}`);
  }
  let output = result.output;
  if (convertsSpace) output = await toColourSpace(output, p.outputColorSpace === 'srgb' ? 'srgb' : ctx.iccProfilePath, target, p.outputQuality ?? 90);
  const scene = ctx.engine?.detect ? (result.detectionData?.scene ?? -1) : -1;
  return { output, extension: target, scene, ...(skipped ? { skipped } : {}) };
}

function listOf(v: string | readonly string[] | undefined): readonly string[] | undefined {
  return typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter(Boolean) : v;
}

function pick<T extends object, K extends keyof T>(o: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k];
  return out;
}

/** `skip-exif-software`: the EXIF Software tag names one of the programs (case-insensitive substring). */
async function softwareSkip(meta: Metadata, names: readonly string[]): Promise<string | undefined> {
  if (names.length === 0 || !meta.exif) return undefined;
  let software: string | undefined;
  try {
    software = exifReader(meta.exif).Image?.Software;
  } catch {
    return undefined;
  }
  if (typeof software !== 'string') return undefined;
  const hit = names.find((n) => software.toLowerCase().includes(n.toLowerCase()));
  return hit ? `edited with ${software} (skip-exif-software: ${hit})` : undefined;
}

/** `skip` (clipart/legacy): only with a named preset (ignored under AI preset selection), by the entropy heuristic. */
async function clipartSkip(input: Buffer, p: ContainerParams, defaultMode: ContainerSkipMode): Promise<string | undefined> {
  const mode = p.skip ?? defaultMode;
  if (mode === 'none' || p.preset === undefined) return undefined;
  const { entropy } = await sharp(input).stats();
  return entropy < CLIPART_ENTROPY_BITS ? `looks like clipart (entropy ${entropy.toFixed(2)} bits; skip=${mode})` : undefined;
}

async function toColourSpace(png: Buffer, profile: string | undefined, target: 'jpg' | 'png', quality: number): Promise<Buffer> {
  let s = sharp(png).keepMetadata();
  if (profile === 'srgb') s = s.toColourspace('srgb').withIccProfile('srgb');
  else if (profile) s = s.withIccProfile(profile);
  return (target === 'jpg' ? s.jpeg({ quality }) : s.png()).toBuffer();
}
