/**
 * The e2e test page (bundled for the browser by the test). It plays Figma:
 * runs the BUILT `dist/code.js` against the simulated `figma` with no browser
 * APIs in reach, and shows the BUILT `dist/ui.html` in a sandboxed iframe
 * (opaque origin, so requests carry `Origin: null`) wired the way Figma wires
 * it: `{ pluginMessage }` envelopes both ways.
 */
import { fitForFigma } from '../../src/ui/fit-output';
import { rgbForWebApi } from '../../src/ui/web-api-input';
import { imageFill, SimFigma, solidFill, type UiChannel } from '../sim/figma';
import { MANIFEST, type NetworkAccess } from '../sim/manifest';
import type { SimFrame, SimNode, SimShape } from '../sim/nodes';
import { runInFigmaSandbox } from '../sim/sandbox';
import { uiContentSecurityPolicy, type PluginMode } from './csp';
import type { DumpNode, HarnessApi, NodeSpec } from './spec';
import { THEME_VARIABLES } from './theme';

/** The network rules the next launch applies: the manifest's, or a test's narrower variant. */
const network: { access: NetworkAccess; mode: PluginMode } = { access: MANIFEST.networkAccess, mode: 'development' };

function iframeChannel(): UiChannel {
  let frame: HTMLIFrameElement | undefined;
  let ready = false;
  const queue: unknown[] = [];
  const flush = () => {
    for (const m of queue.splice(0)) frame?.contentWindow?.postMessage({ pluginMessage: m }, '*');
  };
  return {
    open(html, options, theme) {
      // The policy comes first in <head>, so it covers everything the document loads or runs.
      const csp = uiContentSecurityPolicy(network.access, network.mode).replace(/"/g, '&quot;');
      const themed = html
        .replace('<html', `<html class="figma-${theme}"`)
        .replace('<head>', `<head><meta http-equiv="Content-Security-Policy" content="${csp}"><style id="figma-style">:root{${THEME_VARIABLES[theme]}}</style>`);
      frame = document.createElement('iframe');
      frame.id = 'plugin-ui';
      frame.title = options.title ?? 'plugin';
      // No allow-same-origin: an opaque origin, as Figma's plugin iframe has.
      frame.setAttribute('sandbox', 'allow-scripts allow-forms');
      frame.style.width = `${options.width ?? 300}px`;
      frame.style.height = `${options.height ?? 200}px`;
      frame.style.border = '1px solid #888';
      frame.addEventListener('load', () => {
        ready = true;
        flush();
      });
      frame.srcdoc = themed;
      document.body.append(frame);
    },
    deliver(message) {
      queue.push(message);
      if (ready) flush();
    },
    close() {
      frame?.remove();
      frame = undefined;
      ready = false;
    },
  };
}

function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

function fromBase64(base64: string): Uint8Array {
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

class Harness implements HarnessApi {
  readonly sim = new SimFigma({ channel: iframeChannel() });
  readonly byName = new Map<string, SimNode>();
  private readonly hashes = new Map<string, string>();
  private code = '';

  constructor() {
    window.addEventListener('message', (e: MessageEvent) => {
      const frame = document.getElementById('plugin-ui') as HTMLIFrameElement | null;
      if (!frame || e.source !== frame.contentWindow) return;
      const msg = (e.data as { pluginMessage?: unknown } | null)?.pluginMessage;
      if (msg !== undefined) this.sim.ui.receive(msg);
    });
  }

  /** Load the built plugin files and the document's images (base64). */
  async setup(images: Record<string, string>, spec: NodeSpec[]): Promise<void> {
    this.code = await (await fetch('/dist/code.js')).text();
    const { hashes } = this;
    for (const [key, b64] of Object.entries(images)) hashes.set(key, this.sim.addImage(fromBase64(b64)));
    const build = (s: NodeSpec): SimNode => {
      const fills: Paint[] = [...(s.solid ? [solidFill(1, 1, 1)] : []), ...(s.images ?? []).map((k) => imageFill(hashes.get(k) ?? k))];
      const kids = (s.children ?? []).map(build);
      const node =
        s.kind === 'group' ? this.sim.group(s.name, kids)
        : s.kind === 'text' ? this.sim.text(s.name, this.sim.mixed)
        : s.kind === 'rect' ? this.sim.rect(s.name, fills)
        : this.sim.frame(s.name, kids, fills, s.kind === 'frame' ? 'FRAME' : s.kind === 'component' ? 'COMPONENT' : 'INSTANCE');
      node.x = s.x ?? 0;
      node.width = s.width ?? 100;
      this.byName.set(s.name, node);
      return node;
    };
    this.sim.place(...spec.map(build));
  }

  select(...names: string[]): void {
    this.sim.select(...names.map((n) => this.node(n)));
  }

  private node(name: string): SimNode {
    const n = this.byName.get(name);
    if (!n) throw new Error(`no layer named ${name}`);
    return n;
  }

  /** Run a menu command: evaluate the built code.js as Figma does, with only `figma` and `__html__`. */
  async launch(command: string, theme: 'light' | 'dark'): Promise<void> {
    this.sim.closePlugin();
    this.sim.command = command;
    this.sim.theme = theme;
    const html = await (await fetch('/dist/ui.html')).text();
    runInFigmaSandbox(this.code, { figma: this.sim.launch(), __html__: html });
  }

  setNetwork(access: NetworkAccess | null, mode: PluginMode): void {
    network.access = access ?? MANIFEST.networkAccess;
    network.mode = mode;
  }

  dump(): DumpNode[] {
    return [...this.sim.nodes.values()]
      .filter((n) => !n.removed && n.type !== 'PAGE' && n.type !== 'DOCUMENT')
      .map((n) => ({
        id: n.id,
        name: n.name,
        type: n.type,
        parentId: n.parent?.id ?? null,
        x: n.x,
        y: n.y,
        width: n.width,
        visible: n.visible,
        fills: 'fills' in n ? ((n as SimShape).fills === this.sim.mixed ? 'mixed' : ((n as SimShape).fills as Paint[]).map((p) => ({ ...p }))) : [],
        relaunch: n.getRelaunchData(),
        pluginData: Object.fromEntries(n.getPluginDataKeys().map((k) => [k, n.getPluginData(k)])),
      }));
  }

  /** Order of the page's top-level layers, and of a frame's children. */
  childNames(parent?: string): string[] {
    const p = parent ? (this.node(parent) as SimFrame) : this.sim.page;
    return p.children.map((c) => c.name);
  }

  imageBase64(hash: string): string | null {
    const bytes = this.sim.imageBytes(hash);
    return bytes ? toBase64(bytes) : null;
  }

  async fit(base64: string): Promise<{ base64: string; notes: string[] }> {
    const fitted = await fitForFigma(fromBase64(base64));
    return { base64: toBase64(fitted.bytes), notes: fitted.notes };
  }

  async rgbForWebApi(base64: string): Promise<{ base64: string; notes: string[] }> {
    const input = await rgbForWebApi(fromBase64(base64));
    return { base64: toBase64(input.bytes), notes: input.notes };
  }

  showImage(name: string, key: string): void {
    (this.node(name) as SimShape).fills = [imageFill(this.hashes.get(key) ?? key)];
  }

  clickToastButton(): void {
    this.sim.clickToastButton();
  }

  closeWindow(): void {
    this.sim.closeWindow();
  }

  reopenFile(): void {
    this.sim.reopenFile();
  }

  state() {
    return { undoSteps: this.sim.undoSteps.length, notifications: this.sim.notifications, storageKeys: [...this.sim.clientStorage.data.keys()] };
  }
}

window.harness = new Harness();
