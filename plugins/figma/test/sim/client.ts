/**
 * The simulated `figma` global's objects of one client (SimFigma holds one of
 * each per user): the UI window and its message channel (`figma.ui`), the
 * machine's `clientStorage`, and the `Image` handles of the document's images.
 */
import { CLIENT_STORAGE_QUOTA, figmaClone, storageSize } from './clone';

/** Where `showUI` and `figma.ui.postMessage` go: an iframe in the browser, a recorder in unit tests. */
export interface UiChannel {
  open(html: string, options: ShowUIOptions, theme: 'light' | 'dark'): void;
  /** One main → UI message, already cloned. */
  deliver(message: unknown): void;
  close(): void;
}

/** What the document tells an image handle: a read of its bytes (counted), and the fault its reads meet, if any. */
export interface ImageHooks {
  read(): void;
  fault(): Error | undefined;
}

/**
 * An image of the file. Its reads return promises "because the image may still need to be downloaded (images in
 * Figma are loaded separately from the rest of the document)" (typings `Image.getBytesAsync`, `getSizeAsync`): a
 * download that fails (a test's `imageFaults`) rejects them.
 */
export class SimImage implements Image {
  constructor(
    readonly hash: string,
    private readonly bytes: Uint8Array,
    readonly size: { width: number; height: number },
    private readonly hooks: ImageHooks,
  ) {}
  async getBytesAsync(): Promise<Uint8Array> {
    this.loaded();
    this.hooks.read();
    return this.bytes.slice();
  }
  async getSizeAsync(): Promise<{ width: number; height: number }> {
    this.loaded();
    return { ...this.size };
  }
  private loaded(): void {
    const fault = this.hooks.fault();
    // A fresh error each time, as each read is its own download.
    if (fault) throw new Error(fault.message);
  }
}

/**
 * clientStorage as Figma documents it: per plugin id (a store outlives the
 * plugin run and is shared by every run with the same id, on this "machine"),
 * only the documented value types, and the 5 MB quota.
 */
export class SimClientStorage implements ClientStorageAPI {
  /** Stores by plugin id, for the life of the test process (like the user's machine). */
  static readonly machine = new Map<string, Map<string, unknown>>();
  readonly data: Map<string, unknown>;
  /** `machine`: the stores of another user's machine (`SimFigma.otherUser`). */
  constructor(pluginId: string, machine = SimClientStorage.machine) {
    let store = machine.get(pluginId);
    if (!store) machine.set(pluginId, (store = new Map()));
    this.data = store;
  }
  async getAsync(key: string): Promise<unknown> {
    return this.data.has(key) ? figmaClone(this.data.get(key), 'clientStorage') : undefined;
  }
  async setAsync(key: string, value: unknown): Promise<void> {
    if (typeof key !== 'string') throw new TypeError('clientStorage: key must be a string');
    const copy = figmaClone(value, 'clientStorage', key);
    let used = storageSize(key, copy);
    for (const [k, v] of this.data) if (k !== key) used += storageSize(k, v);
    if (used > CLIENT_STORAGE_QUOTA) throw new Error(`clientStorage: quota of ${CLIENT_STORAGE_QUOTA} bytes exceeded (${used} bytes)`);
    this.data.set(key, copy);
  }
  async deleteAsync(key: string): Promise<void> {
    this.data.delete(key);
  }
  async keysAsync(): Promise<string[]> {
    return [...this.data.keys()];
  }
}

export class SimUi implements UIAPI {
  onmessage: MessageEventHandler | undefined;
  visible = false;
  private readonly listeners = new Set<MessageEventHandler>();
  constructor(private readonly channel: () => UiChannel) {}
  show(): void {
    this.visible = true;
  }
  hide(): void {
    this.visible = false;
  }
  resize(): void {}
  reposition(): void {}
  getPosition(): { windowSpace: Vector; canvasSpace: Vector } {
    return { windowSpace: { x: 0, y: 0 }, canvasSpace: { x: 0, y: 0 } };
  }
  close(): void {
    this.visible = false;
    this.channel().close();
  }
  postMessage(pluginMessage: unknown): void {
    // Figma checks and copies messages, and delivers them later, never synchronously.
    const copy = figmaClone(pluginMessage, 'postMessage', 'pluginMessage');
    setTimeout(() => this.channel().deliver(copy), 0);
  }
  on(_type: 'message', callback: MessageEventHandler): void {
    this.listeners.add(callback);
  }
  once(_type: 'message', callback: MessageEventHandler): void {
    const wrapped: MessageEventHandler = (m, p) => {
      this.listeners.delete(wrapped);
      callback(m, p);
    };
    this.listeners.add(wrapped);
  }
  off(_type: 'message', callback: MessageEventHandler): void {
    this.listeners.delete(callback);
  }
  /** A UI → main message (the `pluginMessage` of an envelope). */
  receive(message: unknown): void {
    const copy = figmaClone(message, 'postMessage', 'pluginMessage');
    this.onmessage?.(copy, { origin: 'null' });
    for (const l of this.listeners) l(copy, { origin: 'null' });
  }
}
