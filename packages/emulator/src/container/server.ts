/**
 * The colour-correction container emulation (`createContainerServer`): `PUT
 * /pfc`, `GET /pfc/{imageKey}`, `GET /output/{file}`, `GET /version`, with the
 * documented error ids, direct file access, retention and JSON log lines.
 * Error bodies: `{"error": "<id>", "message": "<text>"}`.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CONTAINER_ERRORS,
  CONTAINER_PACKAGE_VERSION,
  sniffType,
  validateContainerParams,
  type ContainerCorrectionResponse,
  type ContainerErrorId,
  type ContainerVersionResponse,
} from '@pfc/core';
import { listen } from '../http/listen';
import { HttpError, sendJson, singleQuery } from '../http/respond';
import { createRequestListener, Router, type RequestContext } from '../http/router';
import { DEFAULT_LIMITS } from '../options';
import { correctContainerImage } from './correct';
import { defaultImagingEngine } from '../default-engine';
import { ContainerFailure, ContainerFiles, type InjectableFault } from './files';
import { checkSiteUrl, logLevelOf, LOG_LEVELS, type ContainerServerOptions, type LogLevel } from './options';

/** A running container emulation. */
export interface ContainerServer {
  /** `http://host:port` where it listens. */
  url: string;
  /** The folders in use. */
  folders: { input: string; output: string; presets: string };
  /** The `PFC_SITE_URL` in use (base of `corrected_url`). */
  siteUrl: string;
  /** Run the retention sweep now (it also runs every `sweepIntervalMs`); resolves to the number of files deleted. */
  sweep(): Promise<number>;
  /** Make the next file-system step that can fail with this id fail with it (test seam for disk-full and close errors). */
  injectFault(id: InjectableFault): void;
  /** Requests answered, by route name. */
  requests: Record<string, number>;
  close(): Promise<void>;
}

/** SDK version the emulation reports in `GET /version`. */
export const EMULATED_SDK_VERSION = '10.7.2.1279-emulator';

/** Starts the container emulation; resolves once it listens. */
export async function createContainerServer(options: ContainerServerOptions = {}): Promise<ContainerServer> {
  const now = options.now ?? Date.now;
  // A temporary data folder only when some folder was not given; removed by close().
  const ownsData = options.dataDir === undefined && !(options.inputDir && options.outputDir && options.presetsDir);
  const data = options.dataDir ?? (ownsData ? await mkdtemp(join(tmpdir(), 'pfc-container-')) : '');
  const files = await ContainerFiles.open(
    {
      input: options.inputDir ?? join(data, 'input'),
      output: options.outputDir ?? join(data, 'output'),
      presets: options.presetsDir ?? join(data, 'presets'),
    },
    now,
  );
  const siteUrl = checkSiteUrl(options.siteUrl ?? 'http://localhost', 'siteUrl');
  const level = logLevelOf(options.logLevel);
  const ttlMs = (options.cacheTtlMinutes ?? 60) * 60_000;
  const maxUpload = options.maxUploadBytes ?? 200_000_000;
  const requests: Record<string, number> = {};
  const engine = options.engine ?? defaultImagingEngine();
  const log = (at: LogLevel, message: string, fields: Record<string, unknown> = {}): void => {
    if (options.log && LOG_LEVELS.indexOf(at) >= LOG_LEVELS.indexOf(level)) {
      options.log(JSON.stringify({ time: new Date(now()).toISOString(), level: at, service: 'container', message, ...fields }));
    }
  };

  const fail = (err: unknown): never => {
    if (err instanceof ContainerFailure) {
      log(CONTAINER_ERRORS[err.id] >= 500 ? 'error' : 'warning', err.message, { id: err.id });
      throw new HttpError(err.status ?? CONTAINER_ERRORS[err.id], err.id, { message: err.message });
    }
    throw err;
  };
  const answer = (id: ContainerErrorId, message: string): never => fail(new ContainerFailure(id, message));

  async function upload({ req, res }: RequestContext): Promise<void> {
    const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'image/jpeg' && type !== 'image/png') {
      answer('noContentTypeRequestMessage', `Content-Type must be image/jpeg or image/png (got ${type ? JSON.stringify(type) : 'none'})`);
    }
    const imageKey = randomUUID();
    const got = await files.receive(req, imageKey, maxUpload).catch(fail);
    log('debug', 'upload stored', { imageKey, bytes: got.size });
    sendJson(res, 200, { imageKey });
  }

  async function correct({ res, url, params }: RequestContext): Promise<void> {
    const key = params.key ?? '';
    const path = await files.inside(files.folders.input, key).catch(fail);
    let query: Record<string, string> = {};
    try {
      query = singleQuery(url);
    } catch (err) {
      answer('invalidParameterMessage', (err as Error).message);
    }
    const check = validateContainerParams(query, { unknown: 'ignore' });
    const bad = check.errors[0];
    if (bad) answer(bad.param === 'outputType' ? 'unknownOutputTypeMessage' : 'invalidParameterMessage', check.errors.map((e) => e.message).join('; '));
    const p = check.params;
    if (!(await files.isFile(path))) answer('unknownImageIdMessage', `no image with the key ${JSON.stringify(key)}`);
    let presetFile: Buffer | undefined;
    if (p.preset !== undefined) {
      presetFile = await files.preset(`${p.preset}.preset`).catch(fail);
      if (!presetFile) answer('unknownPresetMessage', `preset ${JSON.stringify(p.preset)} is not in /presets (${p.preset}.preset)`);
    }
    let iccProfilePath: string | undefined;
    if (p.outputColorSpace !== undefined && p.outputColorSpace !== 'original' && p.outputColorSpace !== 'srgb') {
      iccProfilePath = await files.inside(files.folders.presets, p.outputColorSpace).catch(fail);
      if (!(await files.isFile(iccProfilePath))) answer('unknownPresetMessage', `ICC profile ${JSON.stringify(p.outputColorSpace)} is not in /presets`);
    }
    const input = await readFile(path).catch(() => answer('unknownImageIdMessage', `no image with the key ${JSON.stringify(key)}`));
    const result = await correctContainerImage(input, p, {
      limits: DEFAULT_LIMITS,
      engine,
      presetFile,
      iccProfilePath,
      skipMode: options.skipMode ?? 'clipart',
      skipExifSoftware: options.skipExifSoftware ?? [],
      licensed: options.licensed ?? true,
    }).catch(fail);
    const preserve = p.preserveInputFileName ?? options.preserveInputFileName ?? false;
    const outName = preserve ? key : `${randomUUID()}.${result.extension}`;
    await files.writeOutput(outName, result.output).catch(fail);
    log('info', 'image corrected', { imageKey: key, output: outName, scene: result.scene, ...(result.skipped ? { skipped: result.skipped } : {}) });
    const body: ContainerCorrectionResponse = { corrected_url: `${siteUrl}/output/${encodeURIComponent(outName)}`, scene: result.scene };
    sendJson(res, 200, body);
  }

  async function output({ res, params }: RequestContext): Promise<void> {
    let path: string;
    try {
      path = await files.inside(files.folders.output, params.file ?? '');
    } catch {
      throw new HttpError(404, 'no such output file');
    }
    const bytes = await readFile(path).catch(() => undefined);
    if (!bytes) throw new HttpError(404, 'no such output file');
    // Type from the bytes: with preserveInputFileName an output's name may lack an extension.
    res.writeHead(200, { 'Content-Type': sniffType(bytes.subarray(0, 16)) ?? 'application/octet-stream', 'Content-Length': String(bytes.length), 'Cache-Control': 'no-store' });
    res.end(bytes);
  }

  const router = new Router().add(
    { name: 'container.upload', method: 'PUT', path: '/pfc', handle: upload },
    { name: 'container.noId', method: 'GET', path: '/pfc', handle: () => answer('noIdMessage', 'no image key given: GET /pfc/{imageKey}') },
    { name: 'container.correct', method: 'GET', path: '/pfc/:key', handle: correct },
    { name: 'container.output', method: 'GET', path: '/output/:file', handle: output },
    {
      name: 'container.version',
      method: 'GET',
      path: '/version',
      handle: ({ res }) => {
        const body: ContainerVersionResponse = {
          sdk_version: EMULATED_SDK_VERSION,
          container_version: CONTAINER_PACKAGE_VERSION,
          features: ['presets', 'ai-scene-detection', 'resize', 'autocrop', 'output-color-space', 'skip', 'skip-exif-software', 'direct-file-access'],
        };
        sendJson(res, 200, body);
      },
    },
  );
  const listener = createRequestListener(router, {
    onRequest: (name) => (requests[name] = (requests[name] ?? 0) + 1),
    onResponse: (name, status) => log('debug', 'request', { route: name, status }),
    onError: (name, err) => log('error', 'unexpected error', { route: name, error: err instanceof Error ? err.message : String(err) }),
  });
  const server = await listen(listener, options.host ?? '127.0.0.1', options.port ?? 0);

  const sweep = () => files.sweep(ttlMs, (path, err) => log('info', 'cleanUpFileMessage', { id: 'cleanUpFileMessage', file: path, error: (err as Error).message }));
  const timer = setInterval(() => void sweep().catch(() => undefined), options.sweepIntervalMs ?? 600_000);
  timer.unref();
  log('info', 'container emulation started', { url: server.origin, siteUrl });

  let closing: Promise<void> | undefined;
  return {
    url: server.origin,
    folders: files.folders,
    siteUrl,
    sweep,
    injectFault: (id) => files.inject(id),
    requests,
    close() {
      closing ??= (async () => {
        clearInterval(timer);
        await server.close();
        if (ownsData) await rm(data, { recursive: true, force: true });
      })();
      return closing;
    },
  };
}
