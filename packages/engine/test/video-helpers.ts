/** Clips made with the packaged ffmpeg from sample photos, and what the video tests measure on them. */
import { expect } from 'vitest';
import { srgbToLab } from '../src/colour/deltaE';
import { runFfmpeg } from '../src/video/ffmpeg';
import { sample } from './art-metrics';

/** A 2 s, 24 fps H.264 clip of a sample photo scaled to 320×376, with an optional colour filter (e.g. a cast) and a sine-tone track. */
export async function makeClip(out: string, options: { photo?: string; filter?: string; extra?: string[] } = {}): Promise<void> {
  const vf = ['scale=320:376', ...(options.filter ? [options.filter] : [])].join(',');
  const r = await runFfmpeg([
    '-y', '-loop', '1', '-framerate', '24', '-i', sample(options.photo ?? 'portraits/grace_hopper.jpg'),
    '-f', 'lavfi', '-i', 'sine=frequency=440:duration=2',
    '-t', '2', '-vf', vf, '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-shortest', ...(options.extra ?? []), out,
  ]);
  if (r.code !== 0) throw new Error(r.stderr.slice(-500));
}

/** Frames decoded from the first video stream (a full decode, so a broken file fails here). */
export async function decodedFrames(path: string): Promise<number> {
  const r = await runFfmpeg(['-i', path, '-map', '0:v:0', '-f', 'null', '-']);
  expect(r.code).toBe(0);
  const all = [...r.stderr.matchAll(/frame=\s*(\d+)/g)];
  return Number(all.at(-1)?.[1] ?? 0);
}

/** RGB pixels of the frame at `t` seconds. */
export async function frameAt(path: string, t: number): Promise<Buffer> {
  const r = await runFfmpeg(['-ss', String(t), '-i', path, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1']);
  expect(r.code).toBe(0);
  expect(r.stdout.length).toBeGreaterThan(0);
  return r.stdout;
}

/** Mean R, G, B of the frame at `t` seconds. */
export async function meanColour(path: string, t: number): Promise<[number, number, number]> {
  const px = await frameAt(path, t);
  const s = [0, 0, 0];
  for (let i = 0; i < px.length; i += 3) for (let c = 0; c < 3; c++) s[c]! += px[i + c]!;
  const n = px.length / 3;
  return [s[0]! / n, s[1]! / n, s[2]! / n];
}

/** Mean CIELAB a* and b* over frames at 0.25, 1 and 1.75 s: the clip's overall chroma. */
export async function meanChroma(path: string): Promise<{ a: number; b: number }> {
  let a = 0;
  let b = 0;
  let n = 0;
  for (const t of [0.25, 1, 1.75]) {
    const px = await frameAt(path, t);
    for (let i = 0; i < px.length; i += 3) {
      const lab = srgbToLab(px[i]!, px[i + 1]!, px[i + 2]!);
      a += lab.a;
      b += lab.b;
      n++;
    }
  }
  return { a: a / n, b: b / n };
}
