/**
 * Direct file access (`@pfc/batch`'s `createDirectContainerBackend`) against
 * the emulated container with mounted folders: no image bytes over HTTP, the
 * result read from /output, and both folders left clean after success,
 * failure and abort, whatever the file is called.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContainerError, ParameterError, readAll, TimeoutError, UserAbortError } from '@pfc/core';
import { createDirectContainerBackend, fileInputFromPath } from '@pfc/batch';
import { createContainerServer, type ContainerServer } from '@pfc/emulator';
import { sample } from './webapi-fixtures';

const base = mkdtempSync(join(tmpdir(), 'pfc-direct-'));
const mounts = { inputDir: join(base, 'input'), outputDir: join(base, 'output') };
let server: ContainerServer;

beforeAll(async () => {
  mkdirSync(join(base, 'presets'));
  writeFileSync(join(base, 'presets', 'Studio.preset'), 'x');
  server = await createContainerServer({ ...mounts, presetsDir: join(base, 'presets'), preserveInputFileName: true });
});
afterAll(async () => {
  await server?.close();
  rmSync(base, { recursive: true, force: true });
});

const backend = () => createDirectContainerBackend({ container: { baseURL: server.url, retryBaseDelayMs: 1, maxRetries: 1 }, ...mounts });
const clean = () => [...readdirSync(mounts.inputDir), ...readdirSync(mounts.outputDir)];

describe('direct file access', () => {
  it('corrects through the mounted folders with one GET /pfc/<filename> and no image transfer', async () => {
    const before = { ...server.requests };
    const src = join(base, 'astronaut.jpg');
    writeFileSync(src, sample('portraits/astronaut.jpg'));
    const r = await backend().correct(fileInputFromPath(src), { preset: 'Studio', width: 256, outputType: 'png' }, { fileName: 'astronaut.jpg' });
    const bytes = Buffer.from(await readAll(r.body));
    expect(await sharp(bytes).metadata()).toMatchObject({ format: 'png', width: 256, height: 256 });
    expect(r).toMatchObject({ backend: 'container', contentType: 'image/png', info: { directAccess: true, scene: 1 } }); // scene 1: the default engine finds a portrait
    expect((r.info as { correctedUrl: string }).correctedUrl).toMatch(/\/output\/[0-9a-f-]{36}-astronaut\.jpg$/);
    const delta = Object.fromEntries(Object.entries(server.requests).map(([k, v]) => [k, v - (before[k] ?? 0)]).filter(([, v]) => v !== 0));
    expect(delta).toEqual({ 'container.correct': 1 });
    expect(clean()).toEqual([]);
  });

  it('cleans up after a failure (unknown preset) and after an abort', async () => {
    const err = await backend().correct(sample('objects/coffee.jpg'), { preset: 'Nope' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContainerError);
    expect(err).toMatchObject({ code: 'unknownPresetMessage' });
    expect(clean()).toEqual([]);
    const ctrl = new AbortController();
    const aborted = await backend()
      .correct(sample('objects/coffee.jpg'), {}, { signal: ctrl.signal, onProgress: (p) => p.phase === 'processing' && ctrl.abort() })
      .catch((e: unknown) => e);
    expect(aborted).toBeInstanceOf(UserAbortError);
    expect(clean()).toEqual([]);
  });

  it('a hostile file name stays inside the input folder', async () => {
    const r = await backend().correct(sample('objects/chelsea.png'), {}, { fileName: '../../../etc/pass wd%2F\u0000.png' });
    expect((r.info as { imageKey: string }).imageKey).toMatch(/^[0-9a-f-]{36}-pass_wd_2F_\.png$/);
    expect(await sharp(Buffer.from(await readAll(r.body))).metadata()).toMatchObject({ format: 'png', width: 451 });
    expect(readdirSync(base).sort()).toEqual(['astronaut.jpg', 'input', 'output', 'presets']); // the first test's source only
    expect(clean()).toEqual([]);
  });

  it('gives up at the per-job limit (timeoutMs) like the HTTP backend, and cleans up', async () => {
    // A container that takes the file and never answers GET /pfc/<name>: only the limit can end the wait.
    const silent = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> =>
      /\/pfc\//.test(String(input))
        ? new Promise((_, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason as Error), { once: true }))
        : fetch(input, init);
    const hung = createDirectContainerBackend({ container: { baseURL: server.url, fetch: silent, maxRetries: 0 }, ...mounts });
    const err = await hung.correct(sample('objects/coffee.jpg'), {}, { timeoutMs: 500 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toMatchObject({ timeoutMs: 500 });
    expect(clean()).toEqual([]);
  });

  it('refuses what the container cannot take before copying anything', async () => {
    await expect(backend().correct(await sharp(sample('objects/coffee.jpg')).webp().toBuffer(), {})).rejects.toThrow(/got image\/webp/);
    await expect(backend().correct(sample('objects/coffee.jpg'), { aiArt: 'cartoon' })).rejects.toBeInstanceOf(ParameterError);
    expect(clean()).toEqual([]);
  });
});
