/**
 * A small stateful stand-in for the Web API on a FakeFetch, for unit tests of
 * the client's logic (the contract tests use the real emulator). API routes
 * live on api.test and check the key; pre-signed PUTs on storage.test and
 * results on files.test need none. A job walks through a scripted list of
 * states, one per status request.
 */
import type { JobRecord, JobState, PresetRecord } from '@pfc/core';
import { FakeFetch, json } from './fake-fetch';

export const BASE = 'https://api.test/v2';
export const KEY = 'sk-test-9f8e7d6c5b4a';

interface FakeJob {
  id: string;
  fileKey: string;
  query: URLSearchParams;
  script: JobState[];
  polls: number;
}

export class FakeApi {
  readonly http = new FakeFetch();
  readonly fetch = this.http.fetch;
  /** Bytes received per fileKey (pre-signed PUTs). */
  readonly files = new Map<string, Uint8Array<ArrayBuffer>>();
  readonly jobs = new Map<string, FakeJob>();
  readonly presets: PresetRecord[] = [];
  /** States a new job goes through, one per status request. */
  script: JobState[] = ['PENDING', 'PROCESSING', 'COMPLETED'];
  statusText = '';
  /** Spell the upload address as the real service does (`upload_url`) or camelCase. */
  uploadField: 'upload_url' | 'uploadUrl' = 'upload_url';
  private seq = 0;

  constructor() {
    const h = this.http;
    h.on('GET', /^https:\/\/api\.test\/v2\/upload\?/, (req) => this.authed(req, () => {
      const fileKey = this.uuid();
      return json({ fileKey, [this.uploadField]: `https://storage.test/put/${fileKey}?X-Sig=abc%2Fdef` });
    }));
    h.on('PUT', /^https:\/\/storage\.test\/put\/([^?]+)/, async (req, _u, m) => {
      this.files.set(m[1]!, new Uint8Array(await req.arrayBuffer()));
      return new Response(null, { status: 200 });
    });
    h.on('GET', /^https:\/\/api\.test\/v2\/pfc\?/, (req, url) => this.authed(req, () => {
      const id = `job${++this.seq}`;
      this.jobs.set(id, { id, fileKey: url.searchParams.get('fileKey')!, query: url.searchParams, script: [...this.script], polls: 0 });
      return json({ statusEndpoint: `${BASE}/status/${id}` });
    }));
    h.on('GET', /^https:\/\/api\.test\/v2\/status\/([^?]+)/, (_req, url, m) => {
      const job = this.jobs.get(m[1]!);
      if (!job) return json({ error: 'no such job' }, { status: 404 });
      const rec = this.record(job);
      job.polls++;
      if (rec.status === 'COMPLETED' && url.searchParams.get('noRedirect') !== 'true') {
        return new Response(null, { status: 302, headers: { location: rec.correctedFile! } });
      }
      return json(rec);
    });
    h.on('GET', /^https:\/\/files\.test\/out\/(.+)$/, (_req, _u, m) => {
      const job = this.jobs.get(m[1]!);
      const input = job && this.files.get(job.fileKey);
      if (!input) return json({ error: 'gone' }, { status: 404 });
      return new Response(corrected(input), { headers: { 'content-type': 'image/jpeg', 'content-length': String(input.byteLength) } });
    });
    h.on('GET', /^https:\/\/api\.test\/v2\/presets\?/, (req, url) => this.authed(req, () => {
      const limit = Number(url.searchParams.get('limit') ?? 20);
      const offset = Number(url.searchParams.get('offset') ?? 0);
      return json({ presets: this.presets.slice(offset, offset + limit) });
    }));
    h.on('POST', /^https:\/\/api\.test\/v2\/presets\/$/, (req) => this.authed(req, async () => {
      const { name, description } = (await req.json()) as { name: string; description: string };
      const presetId = `p${++this.seq}`;
      this.presets.push({ presetId, name, description, uri: `${BASE}/presets/${presetId}/file` });
      return json({ presetId, uploadUrl: `https://storage.test/put/${presetId}` });
    }));
    h.on('GET', /^https:\/\/api\.test\/v2\/presets\/([^/?]+)\/file$/, (req, _u, m) => this.authed(req, () => {
      const bytes = this.files.get(m[1]!);
      return bytes ? new Response(bytes) : json({ error: 'no file' }, { status: 404 });
    }));
    h.on('GET', /^https:\/\/api\.test\/v2\/presets\/([^/?]+)$/, (req, _u, m) => this.authed(req, () => {
      const p = this.presets.find((x) => x.presetId === m[1]);
      return p ? json(p) : json({ error: 'no such preset' }, { status: 404 });
    }));
    h.on('DELETE', /^https:\/\/api\.test\/v2\/presets\/([^/?]+)$/, (req, _u, m) => this.authed(req, () => {
      const i = this.presets.findIndex((x) => x.presetId === m[1]);
      if (i < 0) return json({ error: 'no such preset' }, { status: 404 });
      this.presets.splice(i, 1);
      return json({ deleted: true });
    }));
  }

  addPresets(n: number): void {
    for (let i = 0; i < n; i++) this.presets.push({ presetId: `seed${i}`, name: `Preset ${i}`, description: '' });
  }

  private authed(req: Request, answer: () => Response | Promise<Response>): Response | Promise<Response> {
    // Echo the wrong key back, as careless servers do, so the client's redaction is exercised.
    const got = req.headers.get('x-api-key');
    if (got !== KEY) return json({ error: `invalid API key ${got ?? '(none)'}` }, { status: 401 });
    return answer();
  }

  private record(job: FakeJob): JobRecord {
    const status = job.script[Math.min(job.polls, job.script.length - 1)]!;
    const now = new Date().toISOString();
    return {
      _id: job.id,
      status,
      statusText: status === 'FAILED' || status === 'REJECTED' ? this.statusText : '',
      code: 0,
      createdAt: now,
      updatedAt: now,
      usage: { size: 'MEDIUM', imageCorrectionCount: 1, imageResizeCount: 0, classicResizeCount: 0, videoCorrectionCount: 0, removeBackgroundCount: 0, autoCropCount: 0, glaresDetectorCount: 0, removeGlaresTotalCount: 0, removeGlaresCount: 0 },
      aiserver: false,
      timeTaken: 0.5,
      ...(status === 'COMPLETED' ? { correctedFile: `https://files.test/out/${job.id}` } : {}),
    };
  }

  private uuid(): string {
    const n = String(++this.seq).padStart(12, '0');
    return `1b4e28ba-2fa1-11d2-883f-${n}`;
  }
}

/** The fake "correction": every byte inverted, so a test can tell output from input. */
export function corrected(input: Uint8Array): Uint8Array<ArrayBuffer> {
  return input.map((b) => 255 - b);
}
