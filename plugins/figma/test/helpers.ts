/**
 * Unit-test harness: the plugin's main thread started on a simulated `figma`,
 * driven through the same typed messages the UI sends.
 */
import sharp from 'sharp';
import { startPlugin } from '../src/main/plugin';
import type { MainToUi, RequestType, Requests, UiEvent, UiRequest } from '../src/shared/messages';
import { SimFigma, type SimOptions } from './sim/figma';

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
  send(event: UiEvent): void;
  /** Resolves with the next posted message of this type. */
  next<T extends MainToUi['type']>(type: T): Promise<Extract<MainToUi, { type: T }>>;
}

/** Start the plugin on `sim` (or a new one) and connect a scripted UI to it. */
export function connect(sim: SimFigma = new SimFigma(), options: SimOptions = {}): Connected {
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
  startPlugin(sim, '<html><body>ui</body></html>');
  let seq = 0;
  return {
    sim,
    received,
    send: (event) => sim.ui.receive(event),
    next: (type) => new Promise((resolve) => waiters.push({ type, resolve: resolve as (m: MainToUi) => void })),
    request: (type, params) => {
      const requestId = `t${++seq}`;
      const reply = new Promise<MainToUi>((resolve) => waiters.push({ type: `reply:${requestId}`, resolve }));
      sim.ui.receive({ ...params, type, requestId } as UiRequest);
      return reply.then((m) => {
        if (m.type !== 'reply') throw new Error('not a reply');
        if (!m.ok) throw new Error(m.error);
        return m.result as Requests[typeof type]['result'];
      });
    },
  };
}
