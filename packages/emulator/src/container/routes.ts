/**
 * The routes of the colour-correction container emulation (see `server.ts`):
 * one handler per documented endpoint over the shared {@link ContainerState}.
 * Error bodies: `{"error": "<id>", "message": "<text>"}`.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import {
  CONTAINER_ERRORS,
  CONTAINER_PACKAGE_VERSION,
  sniffType,
  validateContainerParams,
  type ContainerCorrectionResponse,
  type ContainerErrorId,
  type ContainerVersionResponse,
} from '@pfc/core';
import type { ImagingEngine } from '../engine';
import { HttpError, mediaTypeOf, sendJson, singleQuery } from '../http/respond';
import { Router, type RequestContext } from '../http/router';
import { DEFAULT_LIMITS } from '../options';
import { correctContainerImage } from './correct';
import { ContainerFailure, type ContainerFiles } from './files';
import type { ContainerServerOptions, LogLevel } from './options';

/** SDK version the emulation reports in `GET /version`. */
export const EMULATED_SDK_VERSION = '10.7.2.1279-emulator';

/** One JSON log line at `at`, when the configured level lets it through. */
export type ContainerLog = (at: LogLevel, message: string, fields?: Record<string, unknown>) => void;

/** What the handlers share. */
export interface ContainerState {
  readonly files: ContainerFiles;
  readonly siteUrl: string;
  readonly maxUpload: number;
  readonly engine: ImagingEngine;
  /** Read per request for the correction defaults (skip mode, licence, file names). */
  readonly options: ContainerServerOptions;
  readonly log: ContainerLog;
  /** Rethrow a {@link ContainerFailure} as its documented HTTP answer (logged); anything else as is. */
  readonly fail: (err: unknown) => never;
  /** Answer with a documented error id. */
  readonly answer: (id: ContainerErrorId, message: string) => never;
  /** Corrections run at once (`workers`) and every one started, for tests and benchmarks. */
  readonly work: CorrectionWork;
}

/** One correction the container started: its image key, when it was asked for, started and ended (ms since the epoch), and how. */
export interface ContainerCorrectionRecord {
  imageKey: string;
  /** When the request arrived, before it waited for a free worker (so a client's files at once show beyond `workers`). */
  requestedAt: number;
  startedAt: number;
  endedAt?: number;
  status: 'running' | 'corrected' | 'failed';
}

/** The `workers` gate and the record of every correction. */
export class CorrectionWork {
  readonly records: ContainerCorrectionRecord[] = [];
  #running = 0;
  readonly #waiting: (() => void)[] = [];
  constructor(
    private readonly workers: number,
    private readonly processingMs: number,
    private readonly now: () => number,
  ) {}

  /** Run `fn` as one correction: wait for a worker, hold it at least `processingMs`, record it. */
  async run<T>(imageKey: string, fn: () => Promise<T>): Promise<T> {
    const requestedAt = this.now();
    if (this.#running >= this.workers) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#running++;
    const record: ContainerCorrectionRecord = { imageKey, requestedAt, startedAt: this.now(), status: 'running' };
    this.records.push(record);
    const started = Date.now();
    try {
      const out = await fn();
      const left = this.processingMs - (Date.now() - started);
      if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
      record.status = 'corrected';
      return out;
    } catch (err) {
      record.status = 'failed';
      throw err;
    } finally {
      record.endedAt = this.now();
      this.#running--;
      this.#waiting.shift()?.();
    }
  }
}

/** `fail` and `answer` of {@link ContainerState}, logging each failure at warning (4xx) or error (5xx). */
export function containerFailures(log: ContainerLog): Pick<ContainerState, 'fail' | 'answer'> {
  const fail = (err: unknown): never => {
    if (err instanceof ContainerFailure) {
      log(CONTAINER_ERRORS[err.id] >= 500 ? 'error' : 'warning', err.message, { id: err.id });
      throw new HttpError(err.status ?? CONTAINER_ERRORS[err.id], err.id, { message: err.message });
    }
    throw err;
  };
  const answer = (id: ContainerErrorId, message: string): never => fail(new ContainerFailure(id, message));
  return { fail, answer };
}

/** The router of every container endpoint. */
export function containerRouter(state: ContainerState): Router {
  return new Router().add(
    { name: 'container.upload', method: 'PUT', path: '/pfc', handle: (ctx) => upload(state, ctx) },
    { name: 'container.noId', method: 'GET', path: '/pfc', handle: () => state.answer('noIdMessage', 'no image key given: GET /pfc/{imageKey}') },
    { name: 'container.correct', method: 'GET', path: '/pfc/:key', handle: (ctx) => correct(state, ctx) },
    { name: 'container.output', method: 'GET', path: '/output/:file', handle: (ctx) => output(state, ctx) },
    { name: 'container.version', method: 'GET', path: '/version', handle: ({ res }) => version(res) },
  );
}

async function upload(state: ContainerState, { req, res }: RequestContext): Promise<void> {
  const type = mediaTypeOf(req);
  if (type !== 'image/jpeg' && type !== 'image/png') {
    state.answer('noContentTypeRequestMessage', `Content-Type must be image/jpeg or image/png (got ${type ? JSON.stringify(type) : 'none'})`);
  }
  const imageKey = randomUUID();
  const got = await state.files.receive(req, imageKey, state.maxUpload, (head) => requireDeclaredType(head, type)).catch(state.fail);
  state.log('debug', 'upload stored', { imageKey, bytes: got.size });
  sendJson(res, 200, { imageKey });
}

/**
 * The body must be what its Content-Type says. The document does not say what
 * the container does with a PNG sent as `image/jpeg` (or with a body that is
 * no image at all); stricter: the same 400 as an unsupported Content-Type, at
 * upload, so a client that labels files by their name is caught here.
 */
function requireDeclaredType(head: Buffer, declared: string): void {
  const actual = sniffType(head);
  if (actual !== declared) {
    throw new ContainerFailure('noContentTypeRequestMessage', `Content-Type is ${declared} but the body is ${actual ?? (head.length === 0 ? 'empty' : 'not a JPEG or PNG image')}`);
  }
}

type ContainerParams = ReturnType<typeof validateContainerParams>['params'];

/**
 * `GET /pfc/{imageKey}`, checked in the container's order: the key's path, the parameters, the upload,
 * the preset and the ICC profile; then correct, write the output and answer its URL.
 */
async function correct(state: ContainerState, { res, url, params }: RequestContext): Promise<void> {
  const { files, fail, answer, options } = state;
  const key = params.key ?? '';
  const path = await files.inside(files.folders.input, key).catch(fail);
  const p = correctionParams(state, url);
  if (!(await files.isFile(path))) answer('unknownImageIdMessage', `no image with the key ${JSON.stringify(key)}`);
  const presetFile = await presetOf(state, p);
  const iccProfilePath = await iccProfileOf(state, p);
  const input = await readFile(path).catch(() => answer('unknownImageIdMessage', `no image with the key ${JSON.stringify(key)}`));
  const result = await state.work.run(key, () => correctContainerImage(input, p, {
    limits: DEFAULT_LIMITS,
    engine: state.engine,
    presetFile,
    iccProfilePath,
    skipMode: options.skipMode ?? 'clipart',
    skipExifSoftware: options.skipExifSoftware ?? [],
    licensed: options.licensed ?? true,
  })).catch(fail);
  const preserve = p.preserveInputFileName ?? options.preserveInputFileName ?? false;
  const outName = preserve ? key : `${randomUUID()}.${result.extension}`;
  await files.writeOutput(outName, result.output).catch(fail);
  state.log('info', 'image corrected', { imageKey: key, output: outName, scene: result.scene, ...(result.skipped ? { skipped: result.skipped } : {}) });
  const body: ContainerCorrectionResponse = { corrected_url: `${state.siteUrl}/output/${encodeURIComponent(outName)}`, scene: result.scene };
  sendJson(res, 200, body);
}

/** The query as checked parameters; the first bad one picks the documented error id. */
function correctionParams(state: ContainerState, url: URL): ContainerParams {
  let query: Record<string, string> = {};
  try {
    query = singleQuery(url);
  } catch (err) {
    state.answer('invalidParameterMessage', (err as Error).message);
  }
  const check = validateContainerParams(query, { unknown: 'ignore' });
  const bad = check.errors[0];
  if (bad) state.answer(bad.param === 'outputType' ? 'unknownOutputTypeMessage' : 'invalidParameterMessage', check.errors.map((e) => e.message).join('; '));
  return check.params;
}

/** The bytes of `/presets/{preset}.preset` when a preset is asked for. */
async function presetOf(state: ContainerState, p: ContainerParams): Promise<Buffer | undefined> {
  if (p.preset === undefined) return undefined;
  const presetFile = await state.files.preset(`${p.preset}.preset`).catch(state.fail);
  if (!presetFile) state.answer('unknownPresetMessage', `preset ${JSON.stringify(p.preset)} is not in /presets (${p.preset}.preset)`);
  return presetFile;
}

/** The path of the ICC profile in /presets when `outputColorSpace` names one (not `original` or `srgb`). */
async function iccProfileOf(state: ContainerState, p: ContainerParams): Promise<string | undefined> {
  if (p.outputColorSpace === undefined || p.outputColorSpace === 'original' || p.outputColorSpace === 'srgb') return undefined;
  const { files } = state;
  const iccProfilePath = await files.inside(files.folders.presets, p.outputColorSpace).catch(state.fail);
  if (!(await files.isFile(iccProfilePath))) state.answer('unknownPresetMessage', `ICC profile ${JSON.stringify(p.outputColorSpace)} is not in /presets`);
  return iccProfilePath;
}

async function output(state: ContainerState, { res, params }: RequestContext): Promise<void> {
  const { files } = state;
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

function version(res: ServerResponse): void {
  const body: ContainerVersionResponse = {
    sdk_version: EMULATED_SDK_VERSION,
    container_version: CONTAINER_PACKAGE_VERSION,
    features: ['presets', 'ai-scene-detection', 'resize', 'autocrop', 'output-color-space', 'skip', 'skip-exif-software', 'direct-file-access'],
  };
  sendJson(res, 200, body);
}
