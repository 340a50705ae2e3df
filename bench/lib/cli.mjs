/** The built `pfc` CLI as a user runs it: a child process on real folders. */
import { CLI_BIN } from './paths.mjs';
import { jsonLines, runNode } from './proc.mjs';

/** The environment without the machine's own PFC_* settings, plus `extra`. */
export function cleanEnv(extra = {}) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('PFC_')) env[k] = v;
  return { ...env, NO_COLOR: '1', ...extra };
}

/**
 * `pfc correct <input> -o <out> --backend web --json --yes ...extra` against
 * `web` with `key` (passed in PFC_API_KEY, never on the command line).
 * Resolves with the process result plus its JSON events and summary line.
 */
export function pfcCorrect({ input, out, web, key, extra = [], rss = false, timeoutMs = 0, onEvent }) {
  const args = ['correct', input, '-o', out, '--backend', 'web', '--base-url', web, '--json', '--yes', ...extra];
  const run = runNode(CLI_BIN, args, {
    env: cleanEnv({ PFC_API_KEY: key }),
    rss,
    timeoutMs,
    ...(onEvent ? { onStdoutLine: (line) => { try { onEvent(JSON.parse(line)); } catch { /* not JSON */ } } } : {}),
  });
  const done = run.then((r) => {
    const events = jsonLines(r.stdout);
    return { ...r, events, summary: events.findLast((e) => e.type === 'summary') };
  });
  return Object.assign(done, { child: run.child });
}
