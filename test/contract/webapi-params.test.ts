/**
 * Every parameter rule of GET /pfc, one valid and one invalid case each. The
 * invalid case must be refused by the client before anything is sent, and by
 * the emulator (sent raw, as a script would) with a 400 carrying the same
 * message: both use the one contract table in @pfc/core.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobFailedError, ParameterError, type PfcParams, type WebApiClient } from '@pfc/core';
import { clientFor, greyPng, imageInfo, rawStart, sample, startWebEmulator, type Emulator } from './webapi-fixtures';

let emu: Emulator;
let client: WebApiClient;
let fileKey: string;
let bgKey: string;
const PHOTO = sample('objects/coffee.jpg');

beforeAll(async () => {
  emu = await startWebEmulator({ workers: 2 });
  client = clientFor(emu);
  fileKey = await client.uploadFile(PHOTO);
  bgKey = await client.uploadFile(greyPng(64, 64));
});
afterAll(() => emu?.close());

type Case = { rule: string; valid: () => Record<string, unknown>; invalid: () => Record<string, unknown>; message: RegExp };

const RB = { removeBackground: true };
const CROP = { autocrop: true };
const CASES: Case[] = [
  { rule: 'fileKey is a UUID from /upload', valid: () => ({}), invalid: () => ({ fileKey: 'not-a-key' }), message: /^fileKey must be a fileKey \(UUID\) from GET \/upload \(got "not-a-key"\)$/ },
  { rule: 'fileType: image, video', valid: () => ({ fileType: 'image' }), invalid: () => ({ fileType: 'audio' }), message: /^fileType must be one of image, video/ },
  { rule: 'preset: a name or none', valid: () => ({ preset: 'none' }), invalid: () => ({ preset: '' }), message: /^preset must be a preset name/ },
  { rule: 'preset: built-in group with spaces', valid: () => ({ preset: 'School and Sports' }), invalid: () => ({ preset: ' ' }), message: /^preset must be a preset name/ },
  { rule: 'cache: boolean', valid: () => ({ cache: false }), invalid: () => ({ cache: 'maybe' }), message: /^cache must be true or false/ },
  { rule: 'outputType: jpg, png, original', valid: () => ({ outputType: 'png' }), invalid: () => ({ outputType: 'gif' }), message: /^outputType must be one of jpg, png, original \(got "gif"\)$/ },
  { rule: 'resize: auto, general, smallDetails', valid: () => ({ resize: 'smallDetails', width: 800 }), invalid: () => ({ resize: 'big' }), message: /^resize must be one of auto, general, smallDetails/ },
  { rule: 'width: 32 to 10000 (low)', valid: () => ({ width: 32 }), invalid: () => ({ width: 31 }), message: /^width must be an integer from 32 to 10000 \(got "31"\)$/ },
  { rule: 'width: 32 to 10000 (high)', valid: () => ({ width: 320 }), invalid: () => ({ width: 10001 }), message: /^width must be an integer from 32 to 10000 \(got "10001"\)$/ },
  { rule: 'width: integer', valid: () => ({ width: '300' }), invalid: () => ({ width: 300.5 }), message: /^width must be an integer from 32 to 10000/ },
  { rule: 'height: 32 to 10000', valid: () => ({ height: 200 }), invalid: () => ({ height: 10001 }), message: /^height must be an integer from 32 to 10000/ },
  { rule: 'long: 32 to 10000', valid: () => ({ long: 300 }), invalid: () => ({ long: 0 }), message: /^long must be an integer from 32 to 10000/ },
  { rule: 'short: 32 to 10000', valid: () => ({ short: 100 }), invalid: () => ({ short: -5 }), message: /^short must be an integer from 32 to 10000/ },
  { rule: 'scale: 1 to 1000 percent', valid: () => ({ scale: 50 }), invalid: () => ({ scale: 1001 }), message: /^scale must be an integer from 1 to 1000/ },
  { rule: 'outputQuality: 40 to 100 (low)', valid: () => ({ outputQuality: 40, outputType: 'jpg' }), invalid: () => ({ outputQuality: 39 }), message: /^outputQuality must be an integer from 40 to 100 \(got "39"\)$/ },
  { rule: 'outputQuality: 40 to 100 (high)', valid: () => ({ outputQuality: 100 }), invalid: () => ({ outputQuality: 101 }), message: /^outputQuality must be an integer from 40 to 100/ },
  { rule: 'autocrop: boolean', valid: () => CROP, invalid: () => ({ autocrop: 'yes' }), message: /^autocrop must be true or false/ },
  { rule: 'autocropDetectOnly requires autocrop', valid: () => ({ ...CROP, autocropDetectOnly: true }), invalid: () => ({ autocropDetectOnly: true }), message: /^autocropDetectOnly requires autocrop=true$/ },
  { rule: 'autocropSize accompanies autocrop', valid: () => ({ ...CROP, autocropSize: '1.2' }), invalid: () => ({ autocropSize: '1.2' }), message: /^autocropSize requires autocrop=true$/ },
  { rule: 'autocropSize is a positive decimal', valid: () => ({ ...CROP, autocropSize: '0.8' }), invalid: () => ({ ...CROP, autocropSize: 'big' }), message: /^autocropSize must be a positive decimal number/ },
  { rule: 'autocropX accompanies autocrop', valid: () => ({ ...CROP, autocropX: '-0.1' }), invalid: () => ({ autocropX: '0.1' }), message: /^autocropX requires autocrop=true$/ },
  { rule: 'autocropY accompanies autocrop', valid: () => ({ ...CROP, autocropY: '0.1' }), invalid: () => ({ autocropY: '0.1' }), message: /^autocropY requires autocrop=true$/ },
  { rule: 'cropARW accompanies autocrop', valid: () => ({ ...CROP, cropARW: '4', cropARH: '5' }), invalid: () => ({ cropARW: '4' }), message: /^cropARW requires autocrop=true$/ },
  { rule: 'cropARH is a positive decimal', valid: () => ({ ...CROP, cropARW: '1', cropARH: '1' }), invalid: () => ({ ...CROP, cropARH: '0' }), message: /^cropARH must be a positive decimal number/ },
  { rule: 'autocropTopHeadGap accompanies autocrop', valid: () => ({ ...CROP, autocropTopHeadGap: '0.15' }), invalid: () => ({ autocropTopHeadGap: '0.15' }), message: /^autocropTopHeadGap requires autocrop=true$/ },
  { rule: 'autocropType: 0 to 4', valid: () => ({ ...CROP, autocropType: 4 }), invalid: () => ({ ...CROP, autocropType: 5 }), message: /^autocropType must be one of 0, 1, 2, 3, 4 \(got "5"\)$/ },
  { rule: 'autocropType accompanies autocrop', valid: () => ({ ...CROP, autocropType: 0 }), invalid: () => ({ autocropType: 2 }), message: /^autocropType requires autocrop=true$/ },
  { rule: 'skip: clipart, legacy, none', valid: () => ({ skip: 'legacy' }), invalid: () => ({ skip: 'all' }), message: /^skip must be one of clipart, legacy, none/ },
  { rule: 'removeGlares: boolean', valid: () => ({ removeGlares: true }), invalid: () => ({ removeGlares: 'on' }), message: /^removeGlares must be true or false/ },
  { rule: 'removeBlemish: boolean', valid: () => ({ removeBlemish: true }), invalid: () => ({ removeBlemish: 1 }), message: /^removeBlemish must be true or false/ },
  { rule: 'removeBackground: boolean', valid: () => RB, invalid: () => ({ removeBackground: 'TRUE' }), message: /^removeBackground must be true or false/ },
  { rule: 'bgColor: #rrggbb or a name', valid: () => ({ ...RB, bgColor: '#00ff00' }), invalid: () => ({ ...RB, bgColor: '#12345' }), message: /^bgColor must be a 6-digit hex colour with #/ },
  { rule: 'bgColor: named colour', valid: () => ({ ...RB, bgColor: 'navy' }), invalid: () => ({ ...RB, bgColor: 'blurple' }), message: /^bgColor must be a 6-digit hex colour/ },
  { rule: 'bgColor requires removeBackground', valid: () => ({ ...RB, bgColor: 'white' }), invalid: () => ({ bgColor: 'white' }), message: /^bgColor requires removeBackground=true$/ },
  { rule: 'bgGenerativePrompt requires removeBackground', valid: () => ({ ...RB, bgGenerativePrompt: 'a sunny beach' }), invalid: () => ({ bgGenerativePrompt: 'a sunny beach' }), message: /^bgGenerativePrompt requires removeBackground=true$/ },
  { rule: 'bgGenerativePrompt is text', valid: () => ({ ...RB, bgGenerativePrompt: 'snow' }), invalid: () => ({ ...RB, bgGenerativePrompt: '   ' }), message: /^bgGenerativePrompt must be text of 1 to 1000 characters/ },
  { rule: 'bgFileKey requires removeBackground', valid: () => ({ ...RB, bgFileKey: bgKey }), invalid: () => ({ bgFileKey: bgKey }), message: /^bgFileKey requires removeBackground=true$/ },
  { rule: 'bgFileKey is a fileKey', valid: () => ({ ...RB, bgFileKey: bgKey }), invalid: () => ({ ...RB, bgFileKey: 'bg.png' }), message: /^bgFileKey must be a fileKey \(UUID\)/ },
  { rule: 'bgShadow: soft, hard, floating', valid: () => ({ ...RB, bgColor: 'white', bgShadow: 'floating' }), invalid: () => ({ ...RB, bgShadow: 'long' }), message: /^bgShadow must be one of soft, hard, floating/ },
  { rule: 'bgShadow requires removeBackground', valid: () => ({ ...RB, bgFileKey: bgKey, bgShadow: 'hard' }), invalid: () => ({ bgShadow: 'soft' }), message: /^bgShadow requires removeBackground=true$/ },
  { rule: 'aiArt: one of the 16 tokens (unknown → 400)', valid: () => ({ aiArt: 'oilPainting' }), invalid: () => ({ aiArt: 'picasso' }), message: /^aiArt must be one of pencilBw, oilPainting, cartoon, watercolor, softPastel, comics, popArt, vanGogh, christmasnye, stValentines, business, ffAdult, spring, ffKid, singlePirate, groupPirate \(got "picasso"\)$/ },
  { rule: 'aiArt: the token, not the display name', valid: () => ({ aiArt: 'groupPirate', preset: 'none' }), invalid: () => ({ aiArt: 'Oil Painting' }), message: /^aiArt must be one of/ },
  { rule: 'aiArt: images only', valid: () => ({ aiArt: 'vanGogh', fileType: 'image' }), invalid: () => ({ aiArt: 'vanGogh', fileType: 'video' }), message: /^aiArt applies to images only/ },
  { rule: 'aiArtOutputSize: 2k, 4k', valid: () => ({ aiArt: 'cartoon', aiArtOutputSize: '4k' }), invalid: () => ({ aiArt: 'cartoon', aiArtOutputSize: '8k' }), message: /^aiArtOutputSize must be one of 2k, 4k/ },
  { rule: 'aiArtOutputSize requires aiArt', valid: () => ({ aiArt: 'spring', aiArtOutputSize: '2k' }), invalid: () => ({ aiArtOutputSize: '2k' }), message: /^aiArtOutputSize requires aiArt$/ },
  { rule: 'aiArtReferenceFileKey requires aiArt', valid: () => ({ aiArt: 'watercolor', aiArtReferenceFileKey: bgKey }), invalid: () => ({ aiArtReferenceFileKey: bgKey }), message: /^aiArtReferenceFileKey requires aiArt$/ },
  { rule: 'preserveMetadata: boolean', valid: () => ({ preserveMetadata: false }), invalid: () => ({ preserveMetadata: 'no' }), message: /^preserveMetadata must be true or false/ },
  { rule: 'updateThumbnail: boolean', valid: () => ({ updateThumbnail: true }), invalid: () => ({ updateThumbnail: 'yes' }), message: /^updateThumbnail must be true or false/ },
  { rule: 'includeDetectionData: boolean', valid: () => ({ includeDetectionData: true }), invalid: () => ({ includeDetectionData: '1' }), message: /^includeDetectionData must be true or false/ },
];

describe.each(CASES)('$rule', ({ valid, invalid, message }) => {
  it('invalid: refused by the client before sending, and by the service with the same 400 message', async () => {
    const params = { fileKey, ...invalid() };
    const before = emu.stats().requests.pfc ?? 0;
    const err = (await client.jobs.start(params as PfcParams).catch((e: unknown) => e)) as ParameterError;
    expect(err).toBeInstanceOf(ParameterError);
    expect(err.message).toMatch(message);
    expect(emu.stats().requests.pfc ?? 0).toBe(before);

    const raw = await rawStart(emu, params);
    expect(raw.status).toBe(400);
    expect((raw.body as { error: string }).error).toBe(err.message);
  });

  it('invalid: correct() refuses it before asking for an upload ticket', async () => {
    const tickets = emu.stats().requests.upload ?? 0;
    const err = await client.correct(PHOTO, invalid() as PfcParams).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ParameterError);
    expect(emu.stats().requests.upload ?? 0).toBe(tickets);
  });

  it('valid: accepted, and the job reaches an end state', async () => {
    const handle = await client.jobs.start({ fileKey, ...valid() } as PfcParams);
    expect(handle.statusEndpoint.startsWith(`${emu.web}/status/`)).toBe(true);
    const job = await client.waitForJob(handle).catch((e: unknown) => e);
    // AI Art and generative backgrounds are in the contract but not run by the
    // emulator: such a job ends REJECTED, saying so. Everything else completes.
    if (job instanceof JobFailedError) expect(job.message).toMatch(/REJECTED: .* not available in the emulator/);
    else expect(job).toMatchObject({ status: 'COMPLETED' });
  });
});

describe('fileKey is required', () => {
  it('is refused by both without a fileKey', async () => {
    const err = (await client.jobs.start({ width: 100 }).catch((e: unknown) => e)) as ParameterError;
    expect(err.message).toMatch(/^fileKey is required/);
    const raw = await rawStart(emu, { width: 100 });
    expect(raw.status).toBe(400);
    expect((raw.body as { error: string }).error).toBe(err.message);
  });
});

describe('priority rules: the client warns, the service applies the first', () => {
  it('rule 1: width wins over long and scale, and the output has that width', async () => {
    const handle = await client.jobs.start({ fileKey, width: 300, long: 100, scale: 10 });
    expect(handle.warnings).toEqual(['several resize parameters were sent (width, long, scale); the service uses width and ignores long, scale']);
    const job = await client.waitForJob(handle);
    expect(await dims(job)).toEqual({ width: 300, height: 200 });
  });

  it('rule 1: height beats short', async () => {
    const handle = await client.jobs.start({ fileKey, height: 100, short: 300 });
    expect(handle.warnings[0]).toMatch(/uses height and ignores short/);
    expect(await dims(await client.waitForJob(handle))).toEqual({ width: 150, height: 100 });
  });

  it('rule 2: generative beats image and colour; bgShadow is ignored outside the image and colour modes', async () => {
    const h = await client.jobs.start({ fileKey, removeBackground: true, bgGenerativePrompt: 'forest', bgFileKey: bgKey, bgColor: 'red' });
    expect(h.warnings).toEqual(['background mode is generative (from bgGenerativePrompt); the service ignores bgFileKey, bgColor']);
    const t = await client.jobs.start({ fileKey, removeBackground: true, bgShadow: 'soft' });
    expect(t.warnings).toEqual(['bgShadow applies to the solid-colour and image modes only; the service ignores it in transparent mode']);
    const i = await client.jobs.start({ fileKey, removeBackground: true, bgFileKey: bgKey, bgColor: '#ffffff', bgShadow: 'hard' });
    expect(i.warnings).toEqual(['background mode is image (from bgFileKey); the service ignores bgColor']);
    // The emulator's default engine draws generative backdrops (deterministic for a prompt): the
    // request that also named an image and a colour gives exactly the generative-only result.
    const g = await client.jobs.start({ fileKey, removeBackground: true, bgGenerativePrompt: 'forest', cache: false });
    const [hJob, gJob, , iJob] = await Promise.all([h, g, t, i].map((handle) => client.waitForJob(handle)));
    for (const job of [hJob, gJob, iJob]) expect(job?.status).toBe('COMPLETED');
    const bytes = async (job: typeof hJob) => Buffer.from(await client.jobs.downloadBytes(job!.correctedFile!));
    const [hb, gb, ib] = await Promise.all([bytes(hJob), bytes(gJob), bytes(iJob)]);
    expect(hb.equals(gb)).toBe(true);
    expect(hb.equals(ib)).toBe(false);
  });
});

async function dims(job: { correctedFile?: string }): Promise<{ width: number; height: number }> {
  const { width, height } = imageInfo(await client.jobs.downloadBytes(job.correctedFile!));
  return { width, height };
}
