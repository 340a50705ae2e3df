/** Every suite, in the order `npm run bench` runs them. */
import crash from './crash.mjs';
import engine from './engine.mjs';
import fleet from './fleet.mjs';
import fuzz from './fuzz.mjs';
import grey from './grey.mjs';
import greyResult from './grey-result.mjs';
import hosts from './hosts.mjs';
import hostLoop from './host-loop.mjs';
import memory from './memory.mjs';
import pipeline from './pipeline.mjs';
import polling from './polling.mjs';
import quality from './quality.mjs';
import scale from './scale.mjs';
import soak from './soak.mjs';
import soakLimits from './soak-limits.mjs';

export const SUITES = [pipeline, polling, memory, grey, greyResult, engine, soak, soakLimits, crash, fuzz, quality, hosts, hostLoop, scale, fleet];
