/**
 * Emulated colour-correction container instances in a process of their own,
 * for the fleet suite: real containers run on other machines, so the client
 * under test must not share its event loop (and its CPU turns) with the
 * instances it drives. Started with `startFleetHost(instances)`; the parent
 * asks over IPC for an instance to die (`kill(i)`) and for every instance's
 * correction records (`records()`).
 *
 * Run as a child (`fork`): the first message is the instances' options; it
 * answers `{ urls }`, then serves `kill` and `records` requests.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Start `instances` (container options, e.g. `{ processingMs, workers }`) in a child process. */
export async function startFleetHost(instances) {
  const child = fork(fileURLToPath(import.meta.url), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let seq = 0;
  const pending = new Map();
  child.on('message', (m) => {
    pending.get(m.id)?.(m);
    pending.delete(m.id);
  });
  const ask = (msg) => new Promise((resolve, reject) => {
    const id = ++seq;
    pending.set(id, (m) => (m.error ? reject(new Error(m.error)) : resolve(m)));
    child.send({ ...msg, id });
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const { urls } = await ask({ type: 'start', instances });
  return {
    urls,
    /** Close instance `i` (its connections dropped), as a machine that dies. */
    kill: (i) => ask({ type: 'kill', i }),
    /** Each instance's correction records (`ContainerCorrectionRecord[]`), in the order started. */
    records: async () => (await ask({ type: 'records' })).records,
    async close() {
      child.send({ type: 'exit' });
      await exited;
    },
  };
}

async function serve() {
  const { startEmulator } = await import('@pfc/emulator');
  let emu;
  process.on('message', async (m) => {
    const answer = (body) => process.send({ id: m.id, ...body });
    try {
      if (m.type === 'start') {
        const [first, ...rest] = m.instances;
        emu = await startEmulator({ engine: {}, bgr: false, container: first, containerInstances: rest });
        answer({ urls: emu.selfHosted.containers.map((c) => c.url) });
      } else if (m.type === 'kill') {
        await emu.selfHosted.containers[m.i].close();
        answer({});
      } else if (m.type === 'records') {
        answer({ records: emu.selfHosted.containers.map((c) => c.corrections) });
      } else if (m.type === 'exit') {
        await emu?.close();
        process.exit(0);
      }
    } catch (err) {
      answer({ error: err instanceof Error ? err.message : String(err) });
    }
  });
}

if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) void serve();
