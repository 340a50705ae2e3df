/**
 * The UI's side of the message channel. Figma delivers main-thread messages as
 * `{ pluginMessage }` on `window`, and takes the UI's as `{ pluginMessage }`
 * posted to `parent`. Each request gets a fresh id; its reply settles exactly
 * the promise that asked, however many requests are in flight.
 */
import {
  isMessage,
  unreachable,
  type MainToUi,
  type RequestType,
  type Requests,
  type UiEvent,
  type UiRequest,
  type UiToMain,
} from '../shared/messages';

/** Messages from the main thread that are not replies. */
export type MainEvent = Exclude<MainToUi, { type: 'reply' }>;

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

/** A rejected request: the main thread's message, for the user. */
export class MainThreadError extends Error {
  override name = 'MainThreadError';
}

export class MainBridge {
  private readonly pending = new Map<string, Pending>();
  private seq = 0;

  constructor(
    private readonly post: (envelope: { pluginMessage: UiToMain }) => void,
    private readonly onEvent: (msg: MainEvent) => void,
  ) {}

  /** Listen on `window` and post to `parent`, as inside Figma. */
  static connect(win: Window, onEvent: (msg: MainEvent) => void): MainBridge {
    const bridge = new MainBridge((env) => win.parent.postMessage(env, '*'), onEvent);
    win.addEventListener('message', (e: MessageEvent) => bridge.receive((e.data as { pluginMessage?: unknown } | null)?.pluginMessage));
    return bridge;
  }

  /** Handle one message from the main thread (anything that is not ours is ignored). */
  receive(data: unknown): void {
    if (!isMessage(data)) return;
    const msg = data as MainToUi;
    switch (msg.type) {
      case 'reply': {
        const p = this.pending.get(msg.requestId);
        if (!p) return;
        this.pending.delete(msg.requestId);
        if (msg.ok) p.resolve(msg.result);
        else p.reject(new MainThreadError(msg.error));
        return;
      }
      case 'init':
      case 'selection':
      case 'plan/progress':
        this.onEvent(msg);
        return;
      default:
        unreachable(msg);
    }
  }

  /** Ask the main thread; resolves with the typed result or rejects with its message. */
  request<K extends RequestType>(type: K, params: Requests[K]['params']): Promise<Requests[K]['result']> {
    const requestId = `r${++this.seq}`;
    return new Promise((resolve, reject) => {
      this.pending.set(requestId, { resolve: resolve as (v: unknown) => void, reject });
      this.post({ pluginMessage: { ...params, type, requestId } as UiRequest });
    });
  }

  send(event: UiEvent): void {
    this.post({ pluginMessage: event });
  }
}
