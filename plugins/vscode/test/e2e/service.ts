/**
 * What the service received and produced, read from the emulator itself
 * (`GET /_emulator/jobs`, control routes on), never from the extension's log:
 * the parameters of every job, the SHA-256 of the input it processed, and the
 * corrected file it made (downloaded from the job's `correctedFile`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PfcParams } from '@pfc/core';
import { expect } from 'vitest';
import { sha256 } from './checks';

/** One record of `GET /_emulator/jobs`. */
export interface ServiceJob {
  jobId: string;
  state: string;
  record: { correctedFile?: string };
  requested: PfcParams;
  params: PfcParams;
  inputSha256: string;
}

/** Every job the emulator at `origin` (e.g. `http://127.0.0.1:PORT`) knows, oldest first. */
export async function serviceJobs(origin: string, apiKey?: string): Promise<ServiceJob[]> {
  const res = await fetch(`${origin}/_emulator/jobs`, { headers: apiKey ? { 'X-API-KEY': apiKey } : {} });
  expect(res.status, 'GET /_emulator/jobs').toBe(200);
  return ((await res.json()) as { jobs: ServiceJob[] }).jobs;
}

/** The bytes the service produced for a job. */
export async function producedBytes(job: ServiceJob, apiKey = 'e2e'): Promise<Buffer> {
  expect(job.record.correctedFile, `job ${job.jobId} has a corrected file`).toBeTruthy();
  const res = await fetch(job.record.correctedFile!, { headers: { 'X-API-KEY': apiKey } });
  expect(res.status, `download of job ${job.jobId}`).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

/**
 * Each of `rels` (inputs below `inputDir`, outputs below `outputDir`) was
 * processed by exactly one of `jobs`, with `preset`; the file on disk differs
 * from its input and is byte for byte what that job produced.
 */
export async function expectProducedByService(jobs: readonly ServiceJob[], rels: readonly string[], inputDir: string, outputDir: string, preset: string, apiKey?: string): Promise<void> {
  expect(jobs.map((j) => j.requested.preset), 'preset of every job as the service received it').toEqual(rels.map(() => preset));
  const bySha = new Map(jobs.map((j) => [j.inputSha256, j]));
  for (const rel of rels) {
    const job = bySha.get(sha256(join(inputDir, rel)));
    expect(job, `a job processed ${rel}`).toBeDefined();
    const onDisk = readFileSync(join(outputDir, rel));
    expect(sha256(join(outputDir, rel)), `${rel}: output differs from input`).not.toBe(sha256(join(inputDir, rel)));
    expect(onDisk.equals(await producedBytes(job!, apiKey)), `${rel}: output is what the service produced`).toBe(true);
  }
}
