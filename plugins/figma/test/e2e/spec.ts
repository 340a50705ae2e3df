/**
 * What the e2e test and the harness page share: the document spec the test
 * sends and the page's `window.harness` API. No Figma types here, so the
 * Node-side test compiles without the plugin typings' globals.
 */

/** Structured-clone-safe spec of a layer of the test document. */
export interface NodeSpec {
  kind: 'rect' | 'frame' | 'group' | 'component' | 'instance' | 'text';
  name: string;
  /** Keys of the images passed to `setup`, one image fill each; `solid` adds a white fill first. */
  images?: string[];
  solid?: boolean;
  x?: number;
  width?: number;
  children?: NodeSpec[];
}

export interface DumpFill {
  type: string;
  imageHash?: string | null;
  scaleMode?: string;
}

export interface DumpNode {
  id: string;
  name: string;
  type: string;
  parentId: string | null;
  x: number;
  y: number;
  width: number;
  visible: boolean;
  fills: DumpFill[] | 'mixed';
  relaunch: Record<string, string>;
  pluginData: Record<string, string>;
}

export interface HarnessApi {
  /** Load the built plugin files, add the images (base64 by key) and build the document. */
  setup(images: Record<string, string>, spec: NodeSpec[]): Promise<void>;
  select(...names: string[]): void;
  /**
   * The `networkAccess` (null: the manifest's) and mode the next launch's UI
   * iframe gets its Content-Security-Policy from.
   */
  setNetwork(access: { allowedDomains: string[]; devAllowedDomains?: string[] } | null, mode: 'development' | 'published'): void;
  /** Run a menu command in a theme, as Figma does: a fresh run of the built code.js. */
  launch(command: string, theme: 'light' | 'dark'): Promise<void>;
  dump(): DumpNode[];
  childNames(parent?: string): string[];
  imageBase64(hash: string): string | null;
  /** Run the UI's last guard (`fitForFigma`) on image bytes in this browser; returns base64 bytes and notes. */
  fit(base64: string): Promise<{ base64: string; notes: string[] }>;
  /** Prepare image bytes for the Web API (`rgbForWebApi`: greyscale redrawn as RGB) in this browser; returns base64 bytes and notes. */
  rgbForWebApi(base64: string): Promise<{ base64: string; notes: string[] }>;
  state(): { undoSteps: number; notifications: { message: string; error: boolean; button?: string }[]; storageKeys: string[] };
  /** The user puts another image (by its `setup` key) in a layer's fills, in the properties panel. */
  showImage(name: string, key: string): void;
  /** The user clicks the button of the toast showing one (`notify`'s `button`). */
  clickToastButton(): void;
  /** The user closes the plugin window. */
  closeWindow(): void;
  /** The file is closed and opened again: the images no layer references are gone (sim/reopen.ts). */
  reopenFile(): void;
}

declare global {
  interface Window {
    harness: HarnessApi;
  }
}
