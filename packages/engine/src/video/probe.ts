/**
 * What a video file holds, read from ffmpeg's own description of the input
 * (`ffmpeg -i file`), so no separate ffprobe binary is needed.
 */
import { EngineError } from '../errors';
import { ffmpegError, runFfmpeg } from './ffmpeg';

/** Facts about a video file. */
export interface VideoInfo {
  /** Container duration in seconds. */
  durationSec: number;
  /** Display size in pixels (after the rotation ffmpeg applies on decode). */
  width: number;
  height: number;
  /** Frame rate of the first video stream (frames per second); 0 when not stated. */
  fps: number;
  /** Video codec name as ffmpeg reports it (e.g. h264). */
  videoCodec: string;
  /** Codec of the first audio stream, undefined when there is none. */
  audioCodec?: string;
  /** Rotation metadata in degrees (0, 90, 180, 270). */
  rotation: number;
}

/**
 * Probe a video file.
 *
 * @throws EngineError `unsupported-input` when ffmpeg finds no video stream or cannot read the file.
 */
export async function probeVideo(path: string, signal?: AbortSignal): Promise<VideoInfo> {
  const { stderr } = await runFfmpeg(['-i', path], signal);
  return parseProbe(stderr);
}

/** Parse the input description ffmpeg prints for `-i` (exported for tests). */
export function parseProbe(stderr: string): VideoInfo {
  const video = /Stream #\d+:\d+(?:\[\w+\])?(?:\(\w+\))?: Video: (\w+)[^\n]*?, (\d{2,5})x(\d{2,5})[^\n]*/.exec(stderr);
  if (!video) throw new EngineError('unsupported-input', `the file has no readable video stream (${ffmpegError(stderr)})`);
  const d = /Duration: (\d+):(\d{2}):(\d{2}(?:\.\d+)?)/.exec(stderr);
  const durationSec = d ? Number(d[1]) * 3600 + Number(d[2]) * 60 + Number(d[3]) : 0;
  if (!(durationSec > 0)) throw new EngineError('unsupported-input', 'the video has no duration (empty or truncated file)');
  const fps = Number(/, (\d+(?:\.\d+)?) fps/.exec(video[0])?.[1] ?? /, (\d+(?:\.\d+)?) tbr/.exec(video[0])?.[1] ?? 0);
  const rot = Number(/rotate\s*:\s*(-?\d+)/.exec(stderr)?.[1] ?? -(Number(/rotation of (-?\d+(?:\.\d+)?) degrees/.exec(stderr)?.[1] ?? 0)));
  const rotation = (((Math.round(rot / 90) * 90) % 360) + 360) % 360;
  const audio = /Stream #\d+:\d+(?:\[\w+\])?(?:\(\w+\))?: Audio: (\w+)/.exec(stderr);
  let width = Number(video[2]);
  let height = Number(video[3]);
  if (rotation === 90 || rotation === 270) [width, height] = [height, width];
  return { durationSec, width, height, fps, videoCodec: video[1]!, ...(audio ? { audioCodec: audio[1]! } : {}), rotation };
}
