import { describe, expect, it } from 'vitest';
import {
  CONTAINER_ERRORS,
  ContainerClient,
  ContainerError,
  ParameterError,
  ProtocolError,
  containerParamsToQuery,
  encodeQuery,
  createContainerBackend,
  imageKeyProblem,
  readAll,
  rewriteOrigin,
  validateContainerParams,
} from '@pfc/core';
import { CONTAINER, FakeContainer, JPEG, PNG } from './container-fakes/fakes';
import { recordingSleep } from './helpers/fake-fetch';

function client(fake: FakeContainer, extra: Record<string, unknown> = {}) {
  return new ContainerClient({ baseURL: CONTAINER, fetch: fake.fetch, sleep: recordingSleep().sleep, ...extra });
}

describe('container contract', () => {
  it.each([
    ['outputType', 'gif', /outputType must be one of JPEG, PNG, jpg/],
    ['outputQuality', 39, /outputQuality must be an integer from 40 to 100/],
    ['outputQuality', 101, /outputQuality must be an integer from 40 to 100/],
    ['width', 31, /width must be an integer from 32 to 10000/],
    ['long', 10001, /long must be an integer from 32 to 10000/],
    ['scale', 0, /scale must be an integer from 1 to 1000/],
    ['skip', 'all', /skip must be one of clipart, legacy, none/],
    ['outputColorSpace', 'adobe', /outputColorSpace must be original, srgb, or an ICC profile/],
    ['outputColorSpace', '../x.icc', /outputColorSpace must be original, srgb/],
    ['preset', '../etc/passwd', /preset must be a preset name/],
    ['autocrop', 'yes', /autocrop must be true or false/],
    ['skip-exif-software', ',', /skip-exif-software must be a comma-separated list/],
    ['enable-composite', 'maybe', /enable-composite must be true or false/],
  ])('rejects %s=%s naming the allowed values', (param, value, message) => {
    const r = validateContainerParams({ [param]: value });
    expect(r.errors.map((e) => e.message).join()).toMatch(message);
  });

  it('parses wire names and query forms, canonicalises outputType case', () => {
    const r = validateContainerParams({ outputType: 'png', 'skip-exif-software': 'Photoshop, GIMP', 'enable-composite': 'false', width: '800', outputColorSpace: 'AdobeRGB1998.icc' });
    expect(r.errors).toEqual([]);
    expect(r.params).toEqual({ outputType: 'PNG', skipExifSoftware: ['Photoshop', 'GIMP'], enableComposite: false, width: 800, outputColorSpace: 'AdobeRGB1998.icc' });
    expect(encodeQuery(containerParamsToQuery(r.params))).toBe('outputType=PNG&outputColorSpace=AdobeRGB1998.icc&width=800&skip-exif-software=Photoshop%2CGIMP&enable-composite=false');
  });

  it('warns about the resize priority and skip under AI preset selection; autocrop parameters need autocrop', () => {
    const r = validateContainerParams({ scale: 50, long: 600, width: 800, skip: 'none' });
    expect(r.warnings[0]).toBe('several resize parameters were sent (width, long, scale); the container uses width and ignores long, scale');
    expect(r.warnings[1]).toMatch(/skip is ignored .* AI preset selection/);
    expect(validateContainerParams({ cropARW: '4' }).errors[0]?.message).toBe('cropARW requires autocrop=true');
    expect(validateContainerParams({ autocrop: true, cropARW: '4', cropARH: '5' }).errors).toEqual([]);
  });

  it.each(['../etc/passwd', '/etc/passwd', 'a/b', 'a\\b', '..', '.', 'a%2Fb', 'x\u0000y', 'C:secret', ' lead', ''])('image key %j fails the sanity check', (key) => {
    expect(imageKeyProblem(key)).toBeTypeOf('string');
  });

  it.each(['photo.jpg', 'IMG_0001 (1).JPG', 'e3b0c442-98fc-1c14', '..hidden.png', 'Ünïcode.png'])('image key %j passes', (key) => {
    expect(imageKeyProblem(key)).toBeUndefined();
  });

  it('moves corrected_url onto the client origin, keeping a proxy prefix', () => {
    expect(rewriteOrigin('http://localhost/output/a.jpg', 'http://box:8081')).toEqual({ url: 'http://box:8081/output/a.jpg', rewritten: true });
    expect(rewriteOrigin('http://localhost/output/a.jpg', 'https://proxy.test/pfc/')).toEqual({ url: 'https://proxy.test/pfc/output/a.jpg', rewritten: true });
    expect(rewriteOrigin('http://box:8081/output/a.jpg', 'http://box:8081')).toEqual({ url: 'http://box:8081/output/a.jpg', rewritten: false });
  });
});

describe('ContainerClient', () => {
  it('uploads with the sniffed type and refuses other types before sending', async () => {
    const fake = new FakeContainer();
    const c = client(fake);
    expect(await c.upload(PNG)).toEqual({ imageKey: 'k1' });
    expect(fake.http.calls[0]!.headers.get('content-type')).toBe('image/png');
    await c.upload(new Blob([JPEG]), {});
    expect(fake.uploads.get('k2')?.type).toBe('image/jpeg');
    const gif = new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61]);
    await expect(c.upload(gif)).rejects.toThrow(/accepts image\/jpeg or image\/png \(got image\/gif\)/);
    await expect(c.upload(new ReadableStream())).rejects.toThrow(ParameterError);
    await expect(c.upload(new ReadableStream(), { fileName: 'clip.webp' })).rejects.toThrow(/got image\/webp/);
    expect(fake.http.calls).toHaveLength(2);
  });

  it('corrects with the wire names, rewrites the origin and says so', async () => {
    const fake = new FakeContainer();
    const c = client(fake);
    const { imageKey } = await c.upload(JPEG);
    const r = await c.correct(imageKey, { preset: 'Studio', outputType: 'jpg', outputQuality: 80, skipExifSoftware: ['GIMP'], enableComposite: false, long: 640 });
    const q = fake.http.calls.at(-1)!.url.searchParams;
    expect(Object.fromEntries(q)).toEqual({ preset: 'Studio', outputType: 'jpg', outputQuality: '80', long: '640', 'skip-exif-software': 'GIMP', 'enable-composite': 'false' });
    expect(r).toMatchObject({ imageKey, correctedUrl: 'http://localhost/output/k1.jpg', downloadUrl: `${CONTAINER}/output/k1.jpg`, originRewritten: true, scene: 3 });
    expect(r.warnings.at(-1)).toMatch(/points at http:\/\/localhost .* downloaded from http:\/\/box\.test:8081/);
    const file = await c.download(r);
    expect(await readAll(file.body)).toEqual(JPEG);
    expect(file.contentType).toBe('image/jpeg');
  });

  it('keeps corrected_url as sent with rewriteOrigin: false', async () => {
    const fake = new FakeContainer();
    const c = client(fake, { rewriteOrigin: false });
    const r = await c.correct((await c.upload(JPEG)).imageKey);
    expect(r).toMatchObject({ downloadUrl: 'http://localhost/output/k1.jpg', originRewritten: false });
    expect(r.warnings).toEqual([]);
  });

  it('checks keys and parameters before sending', async () => {
    const fake = new FakeContainer();
    const c = client(fake);
    const err = await c.correct('../../etc/passwd', { outputQuality: 20 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ParameterError);
    expect((err as ParameterError).params).toEqual(['imageKey', 'outputQuality']);
    expect(fake.http.calls).toHaveLength(0);
  });

  it('types every documented error id', async () => {
    const fake = new FakeContainer();
    const c = client(fake);
    const key = (await c.upload(JPEG)).imageKey;
    const e1 = await c.correct(key, { preset: 'Nope' }).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(ContainerError);
    expect(e1).toMatchObject({ code: 'unknownPresetMessage', status: 400 });
    expect((e1 as Error).message).toMatch(/unknownPresetMessage: preset Nope is not mounted/);
    for (const [id, status] of Object.entries(CONTAINER_ERRORS)) {
      // A text body naming the id is understood as well as the emulator's JSON.
      fake.http.fail('GET', /\/pfc\//, ...Array.from({ length: status >= 500 ? 5 : 1 }, () => ({ status, body: `error: ${id}` })));
      const e = await c.correct(key).catch((x: unknown) => x);
      expect(e, id).toMatchObject({ code: id, status });
      fake.http.calls.length = 0;
    }
  });

  it('retries 503 answers with backoff and then succeeds', async () => {
    const fake = new FakeContainer();
    const { sleep, delays } = recordingSleep();
    const c = new ContainerClient({ baseURL: CONTAINER, fetch: fake.fetch, sleep });
    const key = (await c.upload(JPEG)).imageKey;
    fake.http.fail('GET', /\/pfc\//, { status: 503, body: '{"error":"processingPFCErrorMessage"}' }, { status: 503, body: '{"error":"processingPFCErrorMessage"}' });
    fake.http.fail('PUT', /\/pfc$/, { status: 503, body: '{"error":"temporaryFileCreationMessage"}' });
    expect((await c.correct(key)).scene).toBe(3);
    expect(await c.upload(JPEG)).toEqual({ imageKey: 'k2' });
    expect(delays).toHaveLength(3);
    expect(fake.http.callsTo('GET', /\/pfc\//)).toHaveLength(3);
  });

  it('takes per-call retries and timeout over the client\'s', async () => {
    const fake = new FakeContainer();
    const c = new ContainerClient({ baseURL: CONTAINER, fetch: fake.fetch, sleep: recordingSleep().sleep, maxRetries: 4, timeout: 60_000 });
    const key = (await c.upload(JPEG)).imageKey;
    const busy = { status: 503, body: '{"error":"processingPFCErrorMessage"}' };
    fake.http.fail('GET', /\/pfc\//, busy, busy);
    await expect(c.correct(key, {}, { maxRetries: 0 })).rejects.toMatchObject({ status: 503 });
    expect(fake.http.callsTo('GET', /\/pfc\//)).toHaveLength(1);
    // The client's own four retries still apply to a call that sets none.
    expect((await c.correct(key)).scene).toBe(3);
    expect(fake.http.callsTo('GET', /\/pfc\//)).toHaveLength(3);

    // An answer that never comes: the call's 30 ms, not the client's minute, ends each attempt.
    fake.http.on('GET', /\/version$/, () => new Promise<Response>(() => {}));
    await expect(c.version({ timeout: 30, maxRetries: 1 })).rejects.toThrow(/30 ?ms|timed out|timeout/i);
    expect(fake.http.callsTo('GET', /\/version$/)).toHaveLength(2);
  });

  it('fails with ProtocolError on an answer without corrected_url', async () => {
    const fake = new FakeContainer();
    fake.http.on('GET', /\/pfc\/odd$/, () => new Response('{"scene":1}'));
    await expect(client(fake).correct('odd')).rejects.toThrow(ProtocolError);
  });

  it('reads /version leniently and reports health', async () => {
    const fake = new FakeContainer();
    const c = client(fake);
    expect(await c.version()).toMatchObject({ sdkVersion: '10.7.2', features: ['pfc', 'ai'] });
    expect(await c.health()).toBe(true);
    fake.http.fail('GET', /\/version$/, 'reset');
    expect(await c.health()).toBe(false);
  });
});

describe('createContainerBackend', () => {
  it('maps Web API parameters and returns the common result shape', async () => {
    const fake = new FakeContainer();
    const backend = createContainerBackend({ container: client(fake) });
    const phases: string[] = [];
    const r = await backend.correct(JPEG, { preset: 'Studio', outputType: 'jpg', width: 800, long: 600, preserveMetadata: false }, { onProgress: (p) => phases.push(p.phase) });
    expect(r.backend).toBe('container');
    expect(r.contentType).toBe('image/jpeg');
    expect(await readAll(r.body)).toEqual(JPEG);
    expect(r.info).toMatchObject({ imageKey: 'k1', scene: 3, originRewritten: true, correctedUrl: 'http://localhost/output/k1.jpg' });
    expect(r.warnings.join('\n')).toMatch(/uses width and ignores long/);
    expect(r.warnings.join('\n')).toMatch(/preserveMetadata=false/);
    expect(r.warnings.join('\n')).toMatch(/PFC_SITE_URL/);
    expect(phases).toEqual(['validating', 'uploading', 'processing', 'downloading', 'done']);
    expect(Object.fromEntries(fake.http.callsTo('GET', /\/pfc\//)[0]!.url.searchParams)).toEqual({ preset: 'Studio', outputType: 'JPEG', width: '800', long: '600' });
  });

  it('rejects picture-changing features the container lacks, before upload', async () => {
    const fake = new FakeContainer();
    const backend = createContainerBackend({ container: client(fake) });
    const check = backend.validate({ aiArt: 'cartoon', removeGlares: true, removeBlemish: true, removeBackground: true, autocrop: true, autocropDetectOnly: true });
    expect(check.errors.map((e) => e.param).sort()).toEqual(['aiArt', 'autocropDetectOnly', 'removeBackground', 'removeBlemish', 'removeGlares']);
    expect(backend.validate({ fileType: 'video' }).errors[0]?.message).toMatch(/fileType: .* cannot apply video/);
    expect(check.errors.find((e) => e.param === 'aiArt')?.message).toBe('aiArt: the colour-correction container cannot apply AI Art; use the Web API backend');
    await expect(backend.correct(JPEG, { aiArt: 'cartoon' })).rejects.toThrow(ParameterError);
    expect(fake.http.calls).toHaveLength(0);
    expect(backend.validate({ preset: 'none', includeDetectionData: true, resize: 'general' }).warnings).toHaveLength(3);
  });
});
