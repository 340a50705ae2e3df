#!/usr/bin/env node
/**
 * First-request cost of the engine in a fresh process: import, first
 * correction, then the same correction again (warm). Prints one JSON line
 * { importMs, firstMs, warmMs }.
 * Usage: node engine-first.mjs IMAGE
 */
import { readFileSync } from 'node:fs';

const input = readFileSync(process.argv[2]);
const t0 = performance.now();
const { correctImage } = await import('@pfc/engine');
const t1 = performance.now();
await correctImage(input, {});
const t2 = performance.now();
await correctImage(input, {});
const t3 = performance.now();
console.log(JSON.stringify({ importMs: t1 - t0, firstMs: t2 - t1, warmMs: t3 - t2 }));
