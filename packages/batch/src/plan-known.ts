/**
 * Planning's fast lane for a rerun: a file whose manifest entry records this
 * very input (same path, size and modification time) made with this run's
 * settings is not sniffed again. Its format is the one its extension names,
 * trusted only when the output that format gives is the one the manifest
 * recorded for it; nothing is read but the stat planning takes anyway. The
 * same trust the decision gives size and mtime (as git's index does), moved
 * before the header reads, so a rerun of 100,000 up-to-date files reads no file.
 */
import type { Stats } from 'node:fs';
import { extname } from 'node:path';
import type { PfcParams } from '@pfc/core';
import { fileSettings } from './decide';
import type { Manifest } from './manifest';
import { FORMAT_OF_EXTENSION } from './paths';
import type { PlannedFile } from './plan';
import { contentTypeOf, type MediaFormat, type MediaInfo } from './sniff';

/** One `MediaInfo` per format, shared by every file planned through the manifest (no pixel size: the headers were not read). */
const MEDIA_OF_FORMAT = new Map<MediaFormat, MediaInfo>(
  (['jpeg', 'png', 'mp4', 'mov'] as const).map((f) => [f, Object.freeze({ format: f, fileType: f === 'jpeg' || f === 'png' ? 'image' : 'video', contentType: contentTypeOf(f) })]),
);

/** Maps a file to its planned output for a given media (the planner's own rule). */
export type PlanOutput<T extends Pick<PlannedFile, 'output' | 'outputRoot'>> = (path: string, info: Stats, media: MediaInfo) => T;

/**
 * The file as `plan` maps it (with the media its extension names) when the
 * manifest of its output root records it as made from this input with these
 * settings, or undefined (then the file is sniffed).
 * `inPlace`: the file on disk is the recorded output, not the input.
 */
export function knownMediaLookup(manifests: ReadonlyMap<string, Manifest>, params: PfcParams, backendId: string, inPlace: boolean): <T extends Pick<PlannedFile, 'output' | 'outputRoot'>>(path: string, info: Stats, plan: PlanOutput<T>) => T | undefined {
  const settingsOf = fileSettings(params, backendId);
  return (path, info, plan) => {
    // The format the extension names, which the manifest then confirms.
    const format = FORMAT_OF_EXTENSION.get(extname(path).toLowerCase());
    if (!format || !info.isFile()) return undefined;
    const media = MEDIA_OF_FORMAT.get(format)!;
    const planned = plan(path, info, media);
    const { output, outputRoot } = planned;
    const manifest = manifests.get(outputRoot);
    const entry = manifest?.get(output);
    if (!manifest || !entry || entry.input !== manifest.relOf(path)) return undefined;
    const sameStat = inPlace
      ? entry.outputSize === info.size && entry.outputMtimeMs === info.mtimeMs
      : entry.inputSize === info.size && entry.inputMtimeMs === info.mtimeMs;
    if (!sameStat || entry.settingsKey !== settingsOf({ media }).key) return undefined;
    return planned;
  };
}
