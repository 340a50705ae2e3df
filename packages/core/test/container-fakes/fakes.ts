/**
 * Small stateful stand-ins for the two containers on a FakeFetch, for unit
 * tests of the clients' logic (the contract tests in test/contract use the
 * real emulator).
 */
import { FakeFetch, json } from '../helpers/fake-fetch';

export const CONTAINER = 'http://box.test:8081';
export const BGR = 'http://gpu.test:8000';
export const LICENCE = 'LIC-7f3a9c1e2b';

export const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4]);
export const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 9, 9]);

export class FakeContainer {
  readonly http = new FakeFetch();
  readonly fetch = this.http.fetch;
  readonly uploads = new Map<string, { type: string; bytes: Uint8Array }>();
  siteUrl = 'http://localhost';
  private seq = 0;

  constructor() {
    this.http.on('PUT', /\/pfc$/, async (req) => {
      const type = req.headers.get('content-type') ?? '';
      if (type !== 'image/jpeg' && type !== 'image/png') return json({ error: 'noContentTypeRequestMessage' }, { status: 400 });
      const imageKey = `k${++this.seq}`;
      this.uploads.set(imageKey, { type, bytes: new Uint8Array(await req.arrayBuffer()) });
      return json({ imageKey });
    });
    this.http.on('GET', /\/pfc\/([^/?]+)(\?.*)?$/, (_req, url, m) => {
      const key = decodeURIComponent(m[1]!);
      if (!this.uploads.has(key)) return json({ error: 'unknownImageIdMessage', message: 'no such image' }, { status: 400 });
      const preset = url.searchParams.get('preset');
      if (preset && preset !== 'Studio') return json({ error: 'unknownPresetMessage', message: `preset ${preset} is not mounted` }, { status: 400 });
      return json({ corrected_url: `${this.siteUrl}/output/${key}.jpg`, scene: 3 });
    });
    this.http.on('GET', /\/output\/(k\d+)\.jpg$/, (_req, _url, m) => {
      const u = this.uploads.get(m[1]!);
      return u ? new Response(u.bytes as Uint8Array<ArrayBuffer>, { headers: { 'content-type': 'image/jpeg', 'content-length': String(u.bytes.byteLength) } }) : new Response('', { status: 404 });
    });
    this.http.on('GET', /\/version$/, () => json({ sdk_version: '10.7.2', container_version: '11.0.1', features: ['pfc', 'ai'] }));
  }
}

interface Job {
  id: string;
  states: ('queued' | 'processing' | 'completed' | 'failed')[];
  name: string;
  mode: string;
  form: FormData;
  query: URLSearchParams;
}

export class FakeBgr {
  readonly http = new FakeFetch();
  readonly fetch = this.http.fetch;
  readonly jobs = new Map<string, Job>();
  licensed = false;
  /** States a new job reports, one per CheckImage. */
  script: Job['states'] = ['queued', 'processing', 'completed'];
  private seq = 0;

  constructor() {
    this.http.on('GET', /\/Authorize\/([^/]*)$/, (_req, _u, m) => {
      const key = decodeURIComponent(m[1]!);
      if (!key) return json({ detail: 'licence key missing' }, { status: 400 });
      this.licensed = key === LICENCE;
      return json({ status: this.licensed ? 'Licensed' : 'Unlicensed', message: this.licensed ? 'ok' : 'licence key rejected', 'licensed org': 'Org', 'expiration date': '2030-12' });
    });
    this.http.on('GET', /\/Status$/, () => json({ status: this.licensed ? 'Licensed' : 'Unlicensed', message: '', 'licensed org': 'Org', 'expiration date': '2030-12-31T00:00:00Z', model_version: 'm1' }));
    this.http.on('POST', /\/SubmitImage(\?.*)?$/, async (req, url) => {
      if (!this.licensed) return json({ detail: 'Unlicensed', status: 'Unlicensed' }, { status: 403 });
      const form = await req.formData();
      const file = form.get('file');
      if (!(file instanceof Blob)) return json({ detail: [{ loc: ['body', 'file'], msg: 'field required', type: 'value_error.missing' }] }, { status: 422 });
      const id = `00000000-0000-4000-8000-${String(++this.seq).padStart(12, '0')}`;
      const mode = String(form.get('mode') ?? 'general');
      this.jobs.set(id, { id, states: [...this.script], name: (file as File).name, mode, form, query: url.searchParams });
      return json({ status: 'processing', process_id: id, mode, preprocessing_enabled: url.searchParams.get('preprocessing') ?? 'false', message: 'started' });
    });
    this.http.on('GET', /\/CheckImage\/([^/]+)$/, (_req, _u, m) => {
      const job = this.jobs.get(m[1]!);
      if (!job) return json({ detail: 'not found' }, { status: 404 });
      const status = job.states.length > 1 ? job.states.shift()! : job.states[0]!;
      return json({ status, original_name: job.name, mode: job.mode, ...(status === 'completed' ? { processing_time: 0.5 } : {}), ...(status === 'failed' ? { error: 'model exploded' } : {}) });
    });
    this.http.on('GET', /\/DownloadImage\/([^/]+)$/, (_req, _u, m) => {
      const job = this.jobs.get(m[1]!);
      if (!job) return json({ detail: 'not found' }, { status: 404 });
      if (job.states[0] !== 'completed') return json({ status: 'processing' }, { status: 202 });
      return new Response(PNG as Uint8Array<ArrayBuffer>, { headers: { 'content-type': 'image/png' } });
    });
    this.http.on('DELETE', /\/RemoveImage\/([^/]+)$/, (_req, _u, m) => {
      const job = this.jobs.get(m[1]!);
      if (!job) return json({ detail: 'not found' }, { status: 404 });
      this.jobs.delete(job.id);
      return json({ status: 'deleted', process_id: job.id, files_deleted: 2, previous_status: job.states[0] });
    });
  }
}
