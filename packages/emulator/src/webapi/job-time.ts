/**
 * How long each job holds its worker. Real jobs vary with the photo and the
 * load, so besides a constant the emulator draws times from a log-normal
 * distribution (median and σ of its logarithm, seeded: the same seed and job
 * order give the same times) and adds a share per megapixel of the input.
 */
import { seededRandom } from '@pfc/core';
import type { Job } from './jobs';

/** The job-time model (`--processing-ms`, `--processing-sigma`, `--processing-ms-per-mp`, `--processing-seed`). */
export interface ProcessingTime {
  /** Median time a job holds its worker, its real work included, ms. */
  medianMs: number;
  /** σ of the time's natural logarithm; 0 = every job takes the median (plus its size share). */
  sigma: number;
  /** Added per megapixel of the input (from its header; 0 when unknown), ms, before the spread. */
  perMegapixelMs: number;
  /** Seed of the draws. */
  seed: number;
}

/** A function giving each job its least PROCESSING time, drawn in the order jobs start. */
export function jobTimer(model: ProcessingTime): (job: Job) => number {
  const random = seededRandom(model.seed);
  return (job) => {
    const dims = job.spec.file.dimensions;
    const megapixels = dims ? (dims.width * dims.height) / 1e6 : 0;
    const base = model.medianMs + model.perMegapixelMs * megapixels;
    if (model.sigma === 0 || base === 0) return base;
    return base * Math.exp(model.sigma * standardNormal(random));
  };
}

/** A standard normal draw (Box–Muller) from uniform draws in [0, 1). */
function standardNormal(random: () => number): number {
  const u = 1 - random(); // (0, 1]: log(0) never happens
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}
