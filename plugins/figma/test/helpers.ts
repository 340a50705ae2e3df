/**
 * Unit-test harness: the plugin's main thread — the bundle Figma would load,
 * built with the same esbuild options — run in the simulated Figma sandbox
 * (only the language built-ins, `figma` and `__html__`) on a simulated
 * `figma`, and driven through the same typed messages the UI sends.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import sharp from 'sharp';
import { mainBuildOptions } from '../build-options.mjs';
import type { ApplyResult, MainToUi, RequestType, Requests, UiEvent, UiRequest } from '../src/shared/messages';
import { MainBridge } from '../src/ui/bridge';
import { THUMBNAIL_SIDE } from '../src/ui/thumbnail';
import { SimFigma, type SimOptions } from './sim/figma';
import { runInFigmaSandbox } from './sim/sandbox';

const PLUGIN_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
let bundle: Promise<string> | undefined;

/** The main-thread bundle (built once per test file, in memory). */
export function mainBundle(): Promise<string> {
  bundle ??= build({ ...mainBuildOptions(PLUGIN_DIR), minify: false }).then((r) => r.outputFiles?.[0]?.text ?? '');
  return bundle;
}

let storageScope = 0;
/** A simulated Figma with its own clientStorage (a plugin id of its own), so tests do not share settings. */
export function freshSim(options: SimOptions = {}): SimFigma {
  return new SimFigma({ pluginId: `pfc-test-${++storageScope}`, ...options });
}

/** A solid-colour image of the given size and format, made with sharp. */
export async function makeImage(width: number, height: number, format: 'png' | 'jpeg' | 'gif' | 'webp' = 'jpeg', colour = { r: 200, g: 120, b: 60 }): Promise<Uint8Array> {
  const img = sharp({ create: { width, height, channels: 3, background: colour } });
  const out = format === 'png' ? img.png() : format === 'gif' ? img.gif() : format === 'webp' ? img.webp() : img.jpeg();
  return new Uint8Array(await out.toBuffer());
}

export interface Connected {
  sim: SimFigma;
  /** Every message the main thread posted to the UI, in order. */
  received: MainToUi[];
  request<K extends RequestType>(type: K, params: Requests[K]['params']): Promise<Requests[K]['result']>;
  /** Hand a result over and put it into its layers, as the UI does (`image/stage`, later `image/apply`). */
  put(params: Requests['image/stage']['params'] & Requests['image/apply']['params']): Promise<ApplyResult>;
  send(event: UiEvent): void;
  /** Resolves with the next posted message of this type. */
  next<T extends MainToUi['type']>(type: T): Promise<Extract<MainToUi, { type: T }>>;
}

/** Start the plugin on `sim` (or a new one) in the sandbox and connect a scripted UI to it. */
export async function connect(sim: SimFigma = freshSim(), options: SimOptions = {}): Promise<Connected> {
  if (options.command !== undefined) sim.command = options.command;
  const received: MainToUi[] = [];
  const waiters: { type: string; resolve: (m: MainToUi) => void }[] = [];
  sim.channel = {
    open: () => undefined,
    close: () => undefined,
    deliver: (m) => {
      const msg = m as MainToUi;
      received.push(msg);
      const key = msg.type === 'reply' ? `reply:${msg.requestId}` : msg.type;
      const i = waiters.findIndex((w) => w.type === key);
      if (i !== -1) waiters.splice(i, 1)[0]?.resolve(msg);
    },
  };
  runInFigmaSandbox(await mainBundle(), { figma: sim.launch(), __html__: '<html><body>ui</body></html>' });
  let seq = 0;
  const request: Connected['request'] = (type, params) => {
    const requestId = `t${++seq}`;
    const reply = new Promise<MainToUi>((resolve) => waiters.push({ type: `reply:${requestId}`, resolve }));
    sim.ui.receive({ ...params, type, requestId } as UiRequest);
    return reply.then((m) => {
      if (m.type !== 'reply') throw new Error('not a reply');
      if (!m.ok) throw new Error(m.error);
      return m.result as Requests[typeof type]['result'];
    });
  };
  return {
    sim,
    received,
    send: (event) => sim.ui.receive(event),
    next: (type) => new Promise((resolve) => waiters.push({ type, resolve: resolve as (m: MainToUi) => void })),
    request,
    put: async ({ bytes, ...apply }) => {
      await request('image/stage', { runId: apply.runId, hash: apply.hash, bytes });
      return request('image/apply', apply);
    },
  };
}

/** The plugin's bundle started in the sandbox on `sim`, with the UI's bridge wired to it as Figma wires the iframe. */
export async function wired(sim: SimFigma): Promise<MainBridge> {
  const bridge = new MainBridge((env) => sim.ui.receive(env.pluginMessage), () => undefined);
  sim.channel = { open: () => undefined, close: () => undefined, deliver: (m) => bridge.receive(m) };
  runInFigmaSandbox(await mainBundle(), { figma: sim.launch(), __html__: '<html></html>' });
  return bridge;
}

/**
 * The UI's thumbnail step for Node (the browser's decoder and canvas are not
 * here): sharp scales the image down to the same size and encodes it as WebP.
 */
export async function nodeThumbnail(bytes: Uint8Array): Promise<Blob> {
  const side = THUMBNAIL_SIDE;
  return new Blob([new Uint8Array(await sharp(bytes).resize(side, side, { fit: 'inside', withoutEnlargement: true }).webp({ quality: 80 }).toBuffer())], { type: 'image/webp' });
}

/** A response body holding `bytes` (what a backend's `correct` returns). */
export function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({ start: (c) => (c.enqueue(bytes), c.close()) });
}
