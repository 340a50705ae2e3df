/** Custom presets: list (paged), get, create (POST then PUT the file), delete, download the file. */
import type { FileInput } from '../backend';
import { ParameterError, ProtocolError } from '../errors';
import type { PresetCreateResponse, PresetRecord } from '../contract/webapi-types';
import type { ParamIssue } from '../contract/webapi-params';
import { readAll } from '../backend';
import type { InputHints } from './input';
import type { WebApiContext } from './options';
import { callRequestOptions, type CallOptions } from '../transport';
import { drain, preview, type Uploads } from './uploads';
import { path } from '../url-path';

/** Paging of `list()`; the call options apply to each page's request. */
export interface PresetListOptions extends CallOptions {
  /** Presets per page (`limit`). Default 20, the service's default. */
  limit?: number;
  /** Presets to skip before the first page (`offset`). Default 0. */
  offset?: number;
}

/** A new preset; the call options apply to the POST and to the file's PUT. */
export interface PresetCreateParams extends InputHints, CallOptions {
  /** The name used later as `preset` in `/pfc`. */
  name: string;
  description?: string;
  /** The `.preset` file exported from the desktop editing tool. */
  file: FileInput;
}

/**
 * The account's presets, one page request at a time: iterate it for records
 * (`for await (const p of client.presets.list())`) or call `pages()` for arrays.
 * Paging stops at the first short page.
 */
export class PresetList implements AsyncIterable<PresetRecord> {
  constructor(
    private readonly fetchPage: (limit: number, offset: number) => Promise<PresetRecord[]>,
    private readonly limit: number,
    private readonly offset: number,
  ) {}

  async *pages(): AsyncGenerator<PresetRecord[]> {
    let offset = this.offset;
    let previousFirst: string | undefined;
    for (;;) {
      const page = await this.fetchPage(this.limit, offset);
      // A server that ignores `offset` would page forever: stop on a repeated full page.
      const first = page[0]?.presetId;
      if (page.length >= this.limit && first !== undefined && first === previousFirst) {
        throw new ProtocolError(`GET /presets returned the same page for offset ${offset - this.limit} and ${offset}: it ignores offset`);
      }
      yield page;
      if (page.length < this.limit) return;
      previousFirst = first;
      offset += page.length;
    }
  }

  async *[Symbol.asyncIterator](): AsyncIterator<PresetRecord> {
    for await (const page of this.pages()) yield* page;
  }

  /** Every preset, in order. */
  async toArray(): Promise<PresetRecord[]> {
    const all: PresetRecord[] = [];
    for await (const p of this) all.push(p);
    return all;
  }
}

export class Presets {
  readonly #ctx: WebApiContext;
  readonly #uploads: Uploads;

  constructor(ctx: WebApiContext, uploads: Uploads) {
    this.#ctx = ctx;
    this.#uploads = uploads;
  }

  /** Page through `GET /presets?limit&offset`, reading `{presets: [...]}` (a bare array is accepted too). */
  list(options: PresetListOptions = {}): PresetList {
    const limit = options.limit ?? 20;
    const offset = options.offset ?? 0;
    const issues: ParamIssue[] = [];
    if (!Number.isInteger(limit) || limit < 1) issues.push({ param: 'limit', message: `limit must be an integer of at least 1 (got ${limit})` });
    if (!Number.isInteger(offset) || offset < 0) issues.push({ param: 'offset', message: `offset must be an integer of at least 0 (got ${offset})` });
    if (issues.length > 0) throw new ParameterError(issues);
    return new PresetList(async (l, o) => {
      const body = await this.#ctx.transport.json<unknown>('/presets', { query: { limit: l, offset: o }, ...callRequestOptions(options) });
      const list = Array.isArray(body) ? body : (body as { presets?: unknown } | undefined)?.presets;
      if (!Array.isArray(list)) throw new ProtocolError(`GET /presets answered without a presets list: ${preview(body)}`, body);
      return list as PresetRecord[];
    }, limit, offset);
  }

  /** One preset record: `GET /presets/{presetId}` (carries `uri`, the file's address). */
  async get(presetId: string, options: CallOptions = {}): Promise<PresetRecord> {
    const body = await this.#ctx.transport.json<unknown>(path`/presets/${presetId}`, callRequestOptions(options));
    // Tolerate a record wrapped as {preset: {...}}.
    const rec = (body as { preset?: unknown } | undefined)?.preset ?? body;
    if (typeof rec !== 'object' || rec === null || typeof (rec as PresetRecord).presetId !== 'string') {
      throw new ProtocolError(`GET /presets/${presetId} answered something other than a preset: ${preview(body)}`, body);
    }
    return rec as PresetRecord;
  }

  /**
   * Create a preset: `POST /presets/` with `{name, description}`, then PUT the
   * file to the returned `uploadUrl` without the key. When the PUT fails, the
   * half-made preset is deleted (best effort) and the PUT's error is thrown.
   */
  async create(params: PresetCreateParams): Promise<{ presetId: string; name: string; description: string }> {
    if (typeof params.name !== 'string' || params.name.trim() === '') {
      throw new ParameterError([{ param: 'name', message: 'name must be a non-empty preset name' }]);
    }
    const description = params.description ?? '';
    const body = await this.#ctx.transport.json<Partial<PresetCreateResponse> | undefined>('/presets/', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: params.name, description }),
      ...callRequestOptions(params),
    });
    const presetId = body?.presetId;
    const uploadUrl = body?.uploadUrl ?? (body as { upload_url?: string } | undefined)?.upload_url;
    if (typeof presetId !== 'string' || typeof uploadUrl !== 'string') {
      throw new ProtocolError(`POST /presets/ answered without presetId and uploadUrl: ${preview(body)}`, body);
    }
    try {
      await this.#uploads.put(uploadUrl, params.file, params);
    } catch (err) {
      await this.delete(presetId).catch(() => undefined);
      throw err;
    }
    return { presetId, name: params.name, description };
  }

  /** Delete a preset: `DELETE /presets/{presetId}`. */
  async delete(presetId: string, options: CallOptions = {}): Promise<void> {
    const res = await this.#ctx.transport.request(path`/presets/${presetId}`, { method: 'DELETE', ...callRequestOptions(options) });
    await drain(res);
  }

  /** The preset file, fetched from the record's `uri` (with the key when `uri` is on the API's origin). */
  async download(preset: string | PresetRecord, options: CallOptions = {}): Promise<Uint8Array> {
    const rec = typeof preset === 'string' ? await this.get(preset, options) : preset;
    const uri = rec.uri ?? (await this.get(rec.presetId, options)).uri;
    if (typeof uri !== 'string' || uri === '') throw new ProtocolError(`preset ${rec.presetId} has no uri to download its file from`, rec);
    const url = this.#ctx.transport.url(uri);
    const res = await this.#ctx.transport.request(url, { ...callRequestOptions(options), auth: this.#ctx.isOwnOrigin(url), label: 'GET preset file' });
    return res.body ? readAll(res.body) : new Uint8Array();
  }
}
