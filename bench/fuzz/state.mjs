/**
 * Real objects for the fuzz cases to point at, made through valid requests
 * before fuzzing: a Web API fileKey, finished job, result, preset and a
 * signed upload address; a container imageKey and output; a licensed BGR
 * instance with a finished job.
 */
import sharp from 'sharp';
import { photoLikeJpeg } from '../lib/images.mjs';

const API_KEY = 'fuzz-key';
const LICENSE_KEY = 'fuzz-licence';

async function json(res, what) {
  if (!res.ok) throw new Error(`fuzz setup: ${what} answered ${res.status}: ${await res.text()}`);
  // The strict storage answers a PUT with an ETag and no body.
  const text = await res.text();
  return text ? JSON.parse(text) : undefined;
}

async function until(what, f) {
  for (let i = 0; i < 300; i++) {
    const v = await f();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`fuzz setup: ${what} did not finish in 30 s`);
}

export async function setUpState(emu) {
  const jpeg = await photoLikeJpeg(4242, 64, 48);
  const png = await sharp(jpeg).png().toBuffer();
  const key = { 'x-api-key': API_KEY };
  const web = emu.web;

  const ticket = await json(await fetch(`${web}/upload`, { headers: key }), 'GET /upload');
  await json(await fetch(ticket.uploadUrl, { method: 'PUT', body: jpeg }), 'PUT upload');
  const started = await json(await fetch(`${web}/pfc?fileKey=${ticket.fileKey}`, { headers: key }), 'GET /pfc');
  const job = await until('the setup job', async () => {
    const rec = await json(await fetch(`${started.statusEndpoint}?noRedirect=true`), 'status');
    return rec.status === 'COMPLETED' ? rec : undefined;
  });
  const preset = await json(await fetch(`${web}/presets/`, { method: 'POST', headers: { ...key, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'fuzz-preset', description: 'fuzz' }) }), 'POST /presets/');
  await json(await fetch(preset.uploadUrl, { method: 'PUT', body: Buffer.from('fuzz preset file') }), 'PUT preset');
  const spare = await json(await fetch(`${web}/upload`, { headers: key }), 'GET /upload');

  const state = {
    apiKey: API_KEY,
    jpeg,
    png,
    fileKey: ticket.fileKey,
    jobId: job._id,
    resultPath: new URL(job.correctedFile).pathname,
    presetId: preset.presetId,
    presetName: 'fuzz-preset',
    uploadUrl: spare.uploadUrl,
    licenseKey: LICENSE_KEY,
  };

  if (emu.urls.container) {
    const c = emu.urls.container;
    const up = await json(await fetch(`${c}/pfc`, { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: jpeg }), 'container PUT /pfc');
    const done = await json(await fetch(`${c}/pfc/${up.imageKey}`), 'container GET /pfc/{key}');
    state.imageKey = up.imageKey;
    state.outputName = new URL(done.corrected_url).pathname.split('/').pop();
  }
  if (emu.urls.bgr) {
    const b = emu.urls.bgr;
    await json(await fetch(`${b}/Authorize/${LICENSE_KEY}`), 'BGR Authorize');
    const form = new FormData();
    form.append('file', new Blob([jpeg], { type: 'image/jpeg' }), 'photo.jpg');
    const sub = await json(await fetch(`${b}/SubmitImage`, { method: 'POST', body: form }), 'BGR SubmitImage');
    await until('the BGR setup job', async () => (await json(await fetch(`${b}/CheckImage/${sub.process_id}`), 'CheckImage')).status === 'completed');
    state.processId = sub.process_id;
  }
  return state;
}
