/**
 * Colour correction of a video: the planner of stills (white balance,
 * levels, exposure of `colour/plan`) runs once on frames sampled across the
 * clip, and the resulting per-channel curves are applied to every frame by
 * ffmpeg as a 1D LUT, with the preset's vibrance, saturation and sharpening.
 * One correction for the whole clip, so there is no flicker.
 *
 * White balance uses the `video` cast policy: the whole estimated cast is
 * removed (up to 20°), where stills remove at most 3°, so a clip shot under
 * the wrong white balance comes back to neutral.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import type { PfcParams } from '@pfc/core';
import { writeAtomic } from '@pfc/node-io';
import { channelLuts, IDENTITY_PLAN, type ColourPlan } from '../colour/apply';
import { isNeutral, type ColourParams } from '../colour/params';
import { planCorrection } from '../colour/plan';
import { EngineError } from '../errors';
import type { Raster } from '../image/raster';
import { resolvePreset } from '../presets/resolve';
import { detectScene } from '../scene/detect';
import { ffmpegError, runFfmpeg } from './ffmpeg';
import { probeVideo, type VideoInfo } from './probe';

/** Options of {@link correctVideo}. */
export interface VideoOptions {
  /** Aborts probing, sampling or encoding (the ffmpeg process is killed, the partial output removed). */
  signal?: AbortSignal;
  /** File of the custom preset named by `params.preset`. */
  presetFile?: Uint8Array;
  /** Frames sampled for the analysis, spread evenly over the clip. Default 8. */
  sampleFrames?: number;
  /** x264 constant rate factor (0..51, lower = better). Default 18 (visually lossless). */
  crf?: number;
}

/** What {@link correctVideo} did. */
export interface VideoResult {
  durationSec: number;
  width: number;
  height: number;
  /** Whether colour was corrected (false for `preset=none` or a neutral preset: the streams are copied). */
  corrected: boolean;
  /** The preset applied and the curves' plan, for logs. */
  applied: { preset: string; colour: ColourParams; plan: ColourPlan };
  /** Remarks (e.g. an unreadable custom preset), empty when none. */
  notes: string[];
}

/** Long side of the sampled analysis frames, pixels. */
const SAMPLE_SIDE = 256;

/** Audio codecs an MP4 can carry as they are; others are re-encoded to AAC. */
const MP4_AUDIO = new Set(['aac', 'mp3', 'ac3', 'eac3', 'opus', 'alac', 'flac']);

/**
 * Colour-correct an MP4 or MOV file to `outputPath` (same container as the
 * output's extension: .mov → QuickTime, anything else → MP4). H.264 video,
 * audio kept (copied when the container allows). The output appears only when
 * complete (`@pfc/node-io`'s durable atomic write); the input is never modified.
 *
 * @param params the job's `/pfc` parameters; `preset` selects the correction as for images.
 * @throws EngineError `unsupported-input` for a file without a readable video stream, `processing` when ffmpeg fails.
 */
export async function correctVideo(inputPath: string, outputPath: string, params: PfcParams, options: VideoOptions = {}): Promise<VideoResult> {
  const { signal } = options;
  const info = await probeVideo(inputPath, signal);
  const frames = await sampleFrames(inputPath, info, options.sampleFrames ?? 8, signal);
  const middle = frames[Math.floor(frames.length / 2)]!;
  const preset = resolvePreset(params.preset, detectScene(middle).scene, options.presetFile);
  const notes = preset.note ? [preset.note] : [];
  const corrected = !isNeutral(preset.params);
  const plan = corrected ? planCorrection(stack(frames), preset.params, 'video').plan : { ...IDENTITY_PLAN };

  const work = await mkdtemp(join(tmpdir(), 'pfc-video-'));
  const mov = extname(outputPath).toLowerCase() === '.mov';
  try {
    await writeAtomic(
      outputPath,
      async (partial) => {
        const args = ['-y', '-i', inputPath, '-map', '0:v:0', '-map', '0:a?', '-map_metadata', '0'];
        if (corrected) {
          const lut = join(work, 'curves.cube');
          await writeFile(lut, cubeFile(plan));
          args.push('-vf', filterChain(plan, lut, info), '-c:v', 'libx264', '-preset', 'veryfast', '-crf', String(options.crf ?? 18), '-pix_fmt', 'yuv420p');
        } else {
          args.push('-c:v', 'copy');
        }
        const copyAudio = info.audioCodec === undefined || mov || MP4_AUDIO.has(info.audioCodec);
        args.push(...(copyAudio ? ['-c:a', 'copy'] : ['-c:a', 'aac', '-b:a', '192k']));
        args.push(...(mov ? ['-f', 'mov'] : ['-f', 'mp4', '-movflags', '+faststart']), partial);
        const run = await runFfmpeg(args, signal);
        if (run.code !== 0) throw new EngineError('processing', `video encoding failed: ${ffmpegError(run.stderr)}`);
      },
      { signal },
    );
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return {
    durationSec: info.durationSec,
    width: info.width,
    height: info.height,
    corrected,
    applied: { preset: preset.name, colour: preset.params, plan },
    notes,
  };
}

/** `n` RGB frames (long side ≤ 256 px) at evenly spaced times. */
async function sampleFrames(path: string, info: VideoInfo, n: number, signal?: AbortSignal): Promise<Raster[]> {
  const scale = Math.min(1, SAMPLE_SIDE / Math.max(info.width, info.height));
  const w = Math.max(2, Math.round(info.width * scale));
  const h = Math.max(2, Math.round(info.height * scale));
  const frames: Raster[] = [];
  for (let k = 0; k < Math.max(1, n); k++) {
    const t = (info.durationSec * (k + 0.5)) / Math.max(1, n);
    // -ss before -i seeks by keyframe then decodes to the exact time: fast on long files.
    const r = await runFfmpeg(['-ss', t.toFixed(3), '-i', path, '-frames:v', '1', '-vf', `scale=${w}:${h}`, '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'], signal);
    if (r.stdout.length === w * h * 3) frames.push({ data: new Uint8Array(r.stdout), width: w, height: h, channels: 3 });
  }
  if (frames.length === 0) throw new EngineError('unsupported-input', 'no frame of the video could be decoded');
  return frames;
}

/** Frames stacked top to bottom into one analysis raster (the planner sees the whole clip's statistics). */
function stack(frames: readonly Raster[]): Raster {
  const { width, height } = frames[0]!;
  const data = new Uint8Array(width * height * 3 * frames.length);
  frames.forEach((f, k) => data.set(f.data, k * width * height * 3));
  return { data, width, height: height * frames.length, channels: 3 };
}

/** The plan's channel curves as an Iridas/Adobe 1D .cube LUT (256 entries, values 0..1). */
export function cubeFile(plan: ColourPlan): string {
  const [r, g, b] = channelLuts(plan);
  const lines = ['TITLE "pfc colour correction"', 'LUT_1D_SIZE 256', 'DOMAIN_MIN 0 0 0', 'DOMAIN_MAX 1 1 1'];
  for (let i = 0; i < 256; i++) lines.push(`${(r[i]! / 255).toFixed(6)} ${(g[i]! / 255).toFixed(6)} ${(b[i]! / 255).toFixed(6)}`);
  return `${lines.join('\n')}\n`;
}

/** ffmpeg filter chain: curves (lut1d), vibrance, saturation, sharpening, even dimensions for 4:2:0. */
function filterChain(plan: ColourPlan, lutPath: string, info: VideoInfo): string {
  // Escape for the filtergraph parser: backslash, colon and quote are special in option values.
  const file = lutPath.replace(/\\/g, '/').replace(/[:']/g, (c) => `\\${c}`);
  const chain = [`lut1d=file='${file}'`];
  // ffmpeg's vibrance intensity is -2..2; the plan's vibrance is -1..1 with a gentler curve.
  if (plan.vibrance !== 0) chain.push(`vibrance=intensity=${(plan.vibrance * 0.6).toFixed(3)}`);
  if (plan.saturation !== 0) chain.push(`eq=saturation=${(1 + plan.saturation).toFixed(3)}`);
  // Video is sharpened less than stills: compression noise would be amplified in every frame.
  if (plan.sharpen > 0) chain.push(`unsharp=5:5:${(0.35 * plan.sharpen).toFixed(3)}:5:5:0`);
  if (info.width % 2 !== 0 || info.height % 2 !== 0) chain.push('scale=trunc(iw/2)*2:trunc(ih/2)*2');
  return chain.join(',');
}
