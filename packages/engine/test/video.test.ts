/**
 * Video correction end to end: a short clip with a colour cast is made with
 * the packaged ffmpeg itself, corrected, and the output decoded again.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, open, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { correctVideo, parseProbe, probeVideo } from '../src/art/index';
import { EngineError } from '../src/errors';
import { decodedFrames, makeClip, meanColour } from './video-helpers';

let dir: string;
let castMp4: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pfc-video-test-'));
  castMp4 = join(dir, 'cast.mp4');
  // A warm cast: blue and green gains cut.
  await makeClip(castMp4, { filter: 'colorchannelmixer=rr=1:gg=0.82:bb=0.62', extra: ['-c:a', 'aac'] });
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('correctVideo', { timeout: 120_000 }, () => {
  it('corrects a warm cast, keeps duration, size and audio, and writes a decodable MP4', async () => {
    const out = join(dir, 'fixed.mp4');
    const r = await correctVideo(castMp4, out, {});
    expect(r).toMatchObject({ width: 320, height: 376, corrected: true });
    expect(r.applied.preset).toBe('Universal');
    const before = await probeVideo(castMp4);
    const after = await probeVideo(out);
    expect(Math.abs(after.durationSec - before.durationSec)).toBeLessThanOrEqual(1 / 24 + 0.03);
    expect([after.width, after.height, after.videoCodec, after.audioCodec]).toEqual([320, 376, 'h264', 'aac']);
    expect(Math.abs((await decodedFrames(out)) - (await decodedFrames(castMp4)))).toBeLessThanOrEqual(1);
    // The cast: blue far below red. Corrected, blue rises relative to red.
    const [r0, , b0] = await meanColour(castMp4, 1);
    const [r1, , b1] = await meanColour(out, 1);
    expect(b1 / r1).toBeGreaterThan((b0 / r0) * 1.04);
    // Nothing else left behind next to the output.
    expect((await readdir(dir)).filter((f) => f.includes('partial'))).toEqual([]);
  });

  it('writes QuickTime for a .mov path and copies the streams for preset=none', async () => {
    const mov = join(dir, 'same.mov');
    const r = await correctVideo(castMp4, mov, { preset: 'none' });
    expect(r.corrected).toBe(false);
    const head = Buffer.alloc(12);
    const f = await open(mov);
    await f.read(head, 0, 12, 0);
    await f.close();
    expect(head.subarray(4, 12).toString('latin1')).toBe('ftypqt  ');
    expect(Math.abs((await decodedFrames(mov)) - (await decodedFrames(castMp4)))).toBeLessThanOrEqual(1);
    const [r0, , b0] = await meanColour(castMp4, 1);
    const [r1, , b1] = await meanColour(mov, 1);
    expect(Math.abs(b1 / r1 - b0 / r0)).toBeLessThan(0.01);
  });

  it('stops on abort and leaves no output', async () => {
    const out = join(dir, 'aborted.mp4');
    const ctl = new AbortController();
    const p = correctVideo(castMp4, out, {}, { signal: ctl.signal });
    ctl.abort(new Error('user cancelled'));
    await expect(p).rejects.toThrow(/user cancelled/);
    expect(existsSync(out)).toBe(false);
  });

  it('refuses a file that is not a video, naming the problem', async () => {
    const text = join(dir, 'notes.mp4');
    await writeFile(text, 'not a video');
    await expect(correctVideo(text, join(dir, 'y.mp4'), {})).rejects.toThrow(EngineError);
    await expect(correctVideo(text, join(dir, 'y.mp4'), {})).rejects.toThrow(/no readable video stream/);
    expect(existsSync(join(dir, 'y.mp4'))).toBe(false);
  });
});

describe('parseProbe', () => {
  it('reads duration, display size after rotation, fps and codecs', () => {
    const info = parseProbe(`Input #0, mov,mp4,m4a,3gp,3g2,mj2, from 'phone.mov':
  Duration: 00:01:02.50, start: 0.000000, bitrate: 16000 kb/s
    Stream #0:0(und): Video: h264 (High) (avc1 / 0x31637661), yuv420p(tv, bt709), 1920x1080, 15000 kb/s, 29.97 fps, 29.97 tbr, 600 tbn, 1200 tbc (default)
    Metadata:
      rotate          : 90
    Stream #0:1(und): Audio: aac (LC) (mp4a / 0x6134706D), 44100 Hz, stereo, fltp, 96 kb/s (default)`);
    expect(info).toEqual({ durationSec: 62.5, width: 1080, height: 1920, fps: 29.97, videoCodec: 'h264', audioCodec: 'aac', rotation: 90 });
  });
});
