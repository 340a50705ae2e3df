/**
 * Preload for a `pfc correct --json` run: prints to stderr when its milestones
 * happen, in ms since the process started (`performance.now()`): the preload
 * itself (Node's own start), the `plan` event (imports, arguments, planning,
 * opening the backend), the first 10 upload tickets and job starts (the
 * ramp-up: the first wave's uploads run side by side), the first and the last
 * `corrected` event, the summary and the exit.
 *
 * Usage: node --import ./bench/lib/startup-marks.mjs packages/cli/bin/pfc.js correct IN -o OUT --json --yes …
 * Lines: `MARK <name> <ms>`.
 */
const mark = (what, at = performance.now()) => process.stderr.write(`MARK ${what} ${at.toFixed(0)}\n`);
mark('preload');

const FIRST = 10;
const seen = { ticket: 0, start: 0 };
const fetch0 = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const url = String(input instanceof Request ? input.url : input);
  if (/\/upload(\?|$)/.test(url) && seen.ticket < FIRST) mark(`ticket${seen.ticket++}`);
  if (/\/pfc\?/.test(url) && seen.start < FIRST) mark(`start${seen.start++}`);
  return fetch0(input, init);
};

let planSeen = false;
let corrected = 0;
let lastCorrected = 0;
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => {
  const text = String(chunk);
  if (!planSeen && text.includes('"type":"plan"')) {
    planSeen = true;
    mark('plan-event');
  }
  if (text.includes('"type":"corrected"')) {
    if (++corrected === 1) mark('first-corrected');
    lastCorrected = performance.now();
  }
  if (text.includes('"type":"summary"')) mark('summary');
  return write(chunk, ...rest);
};
process.on('exit', () => {
  mark('last-corrected', lastCorrected);
  mark('exit');
});
