/**
 * Where the two self-hosted container emulations refuse what a lax host would
 * let through: a body that is not what its Content-Type says (colour
 * correction), and image types the other APIs do not take (background removal).
 */
import { readdirSync } from 'node:fs';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { createBgrServer, type BgrServer } from '../src/bgr/server';
import { createContainerServer, type ContainerServer } from '../src/container/server';
import { CHELSEA, COFFEE } from './helpers';

const closing: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((s) => s.close()));
});

describe('colour-correction container: PUT /pfc', () => {
  async function container(): Promise<ContainerServer> {
    const s = await createContainerServer({ engine: {} });
    closing.push(s);
    return s;
  }
  const put = (s: ContainerServer, body: Uint8Array, type: string): Promise<Response> =>
    fetch(`${s.url}/pfc`, { method: 'PUT', headers: { 'content-type': type }, body: body as Uint8Array<ArrayBuffer> });

  it.each([
    ['a PNG sent as image/jpeg', CHELSEA, 'image/jpeg', 'Content-Type is image/jpeg but the body is image/png'],
    ['a JPEG sent as image/png', COFFEE, 'image/png', 'Content-Type is image/png but the body is image/jpeg'],
    ['text sent as image/jpeg', new TextEncoder().encode('not an image at all'), 'image/jpeg', 'Content-Type is image/jpeg but the body is not a JPEG or PNG image'],
    ['an empty body', new Uint8Array(0), 'image/png', 'Content-Type is image/png but the body is empty'],
  ])('%s → 400 noContentTypeRequestMessage; nothing kept in /input', async (_case, body, type, message) => {
    const s = await container();
    const res = await put(s, body, type);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'noContentTypeRequestMessage', message });
    expect(readdirSync(s.folders.input)).toEqual([]);
  });

  it('a body matching its Content-Type is stored', async () => {
    const s = await container();
    const res = await put(s, CHELSEA, 'image/png');
    expect(res.status).toBe(200);
    const { imageKey } = (await res.json()) as { imageKey: string };
    expect(readdirSync(s.folders.input)).toEqual([imageKey]);
  });
});

describe('background-removal container: POST /SubmitImage', () => {
  async function bgr(): Promise<BgrServer> {
    const s = await createBgrServer({ engine: {} });
    closing.push(s);
    await fetch(`${s.url}/Authorize/any-key`);
    return s;
  }
  const submit = (s: BgrServer, bytes: Uint8Array): Promise<Response> => {
    const form = new FormData();
    form.append('file', new Blob([bytes as Uint8Array<ArrayBuffer>]), 'image');
    return fetch(`${s.url}/SubmitImage`, { method: 'POST', body: form });
  };
  const image = (format: 'webp' | 'gif' | 'tiff'): Promise<Buffer> => sharp(COFFEE).toFormat(format).toBuffer();

  it.each([['webp'], ['gif'], ['tiff']] as const)('a %s image (sharp decodes it) → 404 invalidFile; no job', async (format) => {
    const s = await bgr();
    const res = await submit(s, await image(format));
    expect(res.status).toBe(404);
    const body = (await res.json()) as { code: string; detail: string };
    expect(body.code).toBe('invalidFile');
    expect(body.detail).toBe(`file content is ${format.toUpperCase()} image; send a JPEG or PNG image`);
    expect(await s.files()).toEqual([]);
  });

  it('an SVG (text sharp renders) → 404 invalidFile; JPEG and PNG are taken', async () => {
    const s = await bgr();
    const svg = new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64" fill="red"/></svg>');
    const res = await submit(s, svg);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/not an image or video this service reads; send a JPEG or PNG image/);
    expect((await submit(s, COFFEE)).status).toBe(200);
    expect((await submit(s, CHELSEA)).status).toBe(200);
  });
});
