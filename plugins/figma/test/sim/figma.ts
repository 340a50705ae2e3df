/**
 * A simulated `figma` global for running the plugin's main thread outside
 * Figma: an in-memory document (see nodes.ts), images stored by SHA-1 with
 * `createImage`'s documented limits (checked by decoding them, decode.ts) and
 * reads a test can make fail (`imageFaults`), `clientStorage`, `notify`, undo steps
 * made by `commitUndo`, a UI channel that structured-clones messages as
 * Figma does, and the file closed and opened again (`reopenFile`: the images
 * no layer references are gone, reopen.ts). `SimFigma implements FigmaApi`,
 * the plugin's own pick of `PluginAPI`, so the compiler checks the simulator
 * against Figma's typings.
 * The document is `root` and its pages; the user views one (`currentPage`).
 * The plugin gets it through `launch()` (one run: session.ts), which disables
 * the API once the plugin closes, refuses every touch of a layer invisible
 * inside an instance and, as the manifest asks for `"documentAccess":
 * "dynamic-page"`, of the content of a page not loaded in this run (the page
 * the user views, and those the plugin loads); the tests use the simulator
 * directly.
 * Several people may have one document open, each running the plugin in
 * their own session (`otherUser`): the document — its nodes, their plugin
 * data, its images — is one, and each has their own client: clientStorage
 * ("on the user's local machine", typings `PluginAPI.clientStorage`), plugin
 * run, window, toasts, loaded pages, `skipInvisibleInstanceChildren` and
 * undo steps. A change one makes is seen by the other at once: as JavaScript
 * runs one thing at a time, that is at the writer's next `await`, which is
 * as soon as Figma could sync it. Sessions on one document syncing later, or
 * not in step (two writes crossing), are not modelled; nor is the selection
 * being each user's own (it is the page's).
 * Runs in Node (unit tests) and in the browser (the e2e test page).
 */
import type { FigmaApi } from '../../src/main/host';
import { SimClientStorage, SimImage, SimUi, type UiChannel } from './client';
import { checkCreateImage } from './decode';
import { asScene, type SimDocument } from './document';
import { DYNAMIC_PAGES, MANIFEST_ID, RELAUNCH_COMMANDS } from './manifest';
import { SimFrame, SimGroup, SimNode, SimShape } from './nodes';
import { asStored } from './paints';
import { SimPage } from './pages';
import { viewOf, type ImageView } from './paint-view';
import { imagesInUse } from './reopen';
import { PluginSession } from './session';
import { sha1Hex } from './sha1';

export type { UiChannel } from './client';

export interface SimOptions {
  command?: string;
  /** The manifest's `id`; clientStorage is kept per id. */
  pluginId?: string;
  /** The commands of the manifest's `relaunchButtons` (setRelaunchData refuses others). */
  relaunchCommands?: readonly string[];
  theme?: 'light' | 'dark';
  channel?: UiChannel;
}

/** The people with the document open: the one whose plugin run touched the API last (the document's callbacks act for them), and all of them. */
interface People {
  acting: SimFigma;
  all: SimFigma[];
}

export class SimFigma implements FigmaApi {
  readonly mixed: PluginAPI['mixed'] = Symbol('figma.mixed') as PluginAPI['mixed'];
  command: string;
  theme: 'light' | 'dark';
  readonly clientStorage: SimClientStorage;
  /** `figma.skipInvisibleInstanceChildren`: false by default in Figma Design (typings). */
  skipInvisibleInstanceChildren = false;
  /** How many times the plugin read image bytes (`getBytesAsync`). */
  byteReads = 0;
  /** How many times a `findAll` callback ran: each is a call from Figma into the plugin, the cost of a walk (nodes.ts). */
  callbacks = 0;
  /** How many nodes the plugin's searches (`findAll`, `findAllWithCriteria`) went through, inside Figma or not. */
  walked = 0;
  /** The pages the plugin loaded (`loadAsync`), by name, in order. */
  readonly pageLoads: string[] = [];
  /** Fills changes that will fail, by node id (a test's fault injection). */
  readonly fillsFaults = new Map<string, Error>();
  /**
   * Images that cannot be read, by hash (a test's fault injection): their `getBytesAsync` and `getSizeAsync` reject
   * with the error, for as long as it is here. Both return promises "because the image may still need to be
   * downloaded (images in Figma are loaded separately from the rest of the document)" (typings `Image`), and a
   * download can fail: a flaky connection, an image that did not load.
   */
  readonly imageFaults = new Map<string, Error>();
  readonly ui: SimUi;
  readonly images = new Map<string, SimImage>();
  readonly nodes = new Map<string, SimNode>();
  /** Every toast shown, in order: what it showed, and its button's text (`notify`'s `button`). */
  readonly notifications: { message: string; error: boolean; button?: string }[] = [];
  /**
   * Toasts still up, with what the plugin asked of them and its run. Their timeouts are not timed: a test says when
   * they go (`endToasts`, `clickToastButton`), as the user or the clock would.
   */
  private toasts: { options: NotificationOptions; session: PluginSession | undefined }[] = [];
  /** Undo steps made by `commitUndo`, each the list of changes it groups. */
  readonly undoSteps: string[][] = [];
  pendingChanges: string[] = [];
  shownWith: ShowUIOptions | undefined;
  /** The document the plugin's current run opened its window with (undefined: none yet). */
  shownHtml: string | undefined;
  channel: UiChannel;
  /** `figma.root`: the document, whose children are the pages. */
  readonly root: SimGroup;
  /** The first page (the only one, unless a test adds more). */
  readonly page: SimPage;
  /** The page the user views (`figma.currentPage`). */
  private viewed: SimPage;
  /** The pages whose content the plugin's current run may reach (dynamic-page). */
  private loaded = new Set<SimPage>();
  private readonly handlers = new Map<string, Set<() => void>>();
  private idCounter = 0;
  /** The plugin's current run (session.ts), from `launch` until it closes. */
  private session: PluginSession | undefined;
  /** A test's "the user closes the window at the plugin's `count`th call of `method`", during it or once it resolved. */
  private closeAt: { method: string; count: number; during: boolean; closed: () => void } | undefined;
  /** A test's "the plugin's `count`th call of `method` waits until released". */
  private pauses: { method: string; count: number; reached: () => void; released: Promise<void> }[] = [];
  readonly doc: SimDocument;
  private people: People = { acting: this, all: [this] };

  constructor(options: SimOptions = {}, sameDocumentAs?: SimFigma) {
    this.command = options.command ?? '';
    this.theme = options.theme ?? 'light';
    this.channel = options.channel ?? { open() {}, deliver() {}, close() {} };
    this.ui = new SimUi(() => this.channel);
    const pluginId = sameDocumentAs?.doc.pluginId ?? options.pluginId ?? MANIFEST_ID;
    this.clientStorage = new SimClientStorage(pluginId, sameDocumentAs ? new Map() : undefined);
    const relaunch = new Set(options.relaunchCommands ?? RELAUNCH_COMMANDS);
    this.doc = {
      pluginId,
      relaunchCommands: relaunch,
      skipInvisibleInstanceChildren: () => this.people.acting.skipInvisibleInstanceChildren,
      fillsFault: (n) => {
        const err = this.fillsFaults.get(n.id);
        this.fillsFaults.delete(n.id);
        return err;
      },
      calledBack: () => void (this.callbacks += 1),
      walked: (nodes) => void (this.walked += nodes),
      loadPage: (page) => {
        const by = this.people.acting;
        return () => {
          by.loaded.add(page);
          by.pageLoads.push(page.name);
        };
      },
      hasNode: (id) => this.nodes.has(id) && !this.nodes.get(id)?.removed,
      mixed: this.mixed,
      nextId: () => `1:${++this.idCounter}`,
      register: (n) => void this.nodes.set(n.id, n),
      changed: (what) => void this.people.acting.pendingChanges.push(what),
      hasImage: (hash) => this.images.has(hash),
      // Where `clone()` puts a duplicate: "parented under `figma.currentPage`" (typings `RectangleNode.clone`).
      page: () => this.people.acting.viewed,
    };
    if (sameDocumentAs) {
      ({ mixed: this.mixed, doc: this.doc, root: this.root, page: this.page, images: this.images, nodes: this.nodes, fillsFaults: this.fillsFaults, imageFaults: this.imageFaults, people: this.people } = sameDocumentAs);
      this.people.all.push(this);
      this.viewed = this.page;
      return;
    }
    this.root = new SimGroup(this.doc, 'Document', 'DOCUMENT');
    this.page = this.addPage('Page 1');
    this.viewed = this.page;
  }

  /**
   * Someone else opens this document on their own machine: the same nodes,
   * plugin data and images, their own client (clientStorage, plugin run,
   * window, toasts, loaded pages), viewing the first page. They run the
   * plugin with `launch`, which leaves this user's run going.
   */
  otherUser(options: Omit<SimOptions, 'pluginId' | 'relaunchCommands'> = {}): SimFigma {
    return new SimFigma(options, this);
  }

  get currentPage(): Pick<PageNode, 'selection' | 'id'> {
    return this.viewed;
  }

  /** A new page at the end of the document (not part of any undo step). */
  addPage(name: string): SimPage {
    const page = new SimPage(this.doc, name, 'PAGE');
    this.root.appendChild(asScene(page));
    this.pendingChanges = [];
    return page;
  }

  /** The user goes to `page`: it becomes the current page, and Figma loads it. */
  showPage(page: SimPage): void {
    this.viewed = page;
    this.loaded.add(page);
  }

  showUI(html: string, options: ShowUIOptions = {}): void {
    this.shownWith = options;
    this.shownHtml = html;
    this.ui.visible = options.visible !== false;
    this.channel.open(html, options, this.theme);
  }

  /** Like Figma: the toast shows the first 100 characters (typings `PluginAPI.notify`: "Longer messages will be truncated"). */
  notify(message: string, options: NotificationOptions = {}): NotificationHandler {
    this.notifications.push({ message: shownInToast(message), error: options.error === true, ...(options.button ? { button: options.button.text } : {}) });
    const toast = { options, session: this.session };
    this.toasts.push(toast);
    return { cancel: () => void (this.toasts = this.toasts.filter((t) => t !== toast)) };
  }

  /**
   * The user clicks the button of the latest toast that has one: its action runs and, unless it returns false, the
   * toast goes with reason 'action_button_click' (typings `NotificationOptions.button`, `onDequeue`).
   */
  clickToastButton(): void {
    const toast = this.toasts.findLast((t) => t.options.button !== undefined);
    if (!toast) throw new Error('no toast with a button is showing');
    if (toast.session?.closed !== false) throw new Error('the toast\'s plugin has closed: its button went with it');
    if (toast.options.button!.action() === false) return;
    this.dequeue(toast, 'action_button_click');
  }

  /** Every toast goes, each with `reason` (its timeout passed, or the user dismissed it); `onDequeue` runs while its plugin is open. */
  endToasts(reason: NotifyDequeueReason = 'timeout'): void {
    for (const toast of [...this.toasts]) this.dequeue(toast, reason);
  }

  /** Whether a toast with a button is still up. */
  get toastButtonShowing(): boolean {
    return this.toasts.some((t) => t.options.button !== undefined);
  }

  private dequeue(toast: (typeof this.toasts)[number], reason: NotifyDequeueReason): void {
    this.toasts = this.toasts.filter((t) => t !== toast);
    if (toast.session?.closed === false) toast.options.onDequeue?.(reason);
  }

  commitUndo(): void {
    if (this.pendingChanges.length === 0) return;
    this.undoSteps.push(this.pendingChanges);
    this.pendingChanges = [];
  }

  /** Whether the plugin's last run has closed (true before any). */
  get closed(): boolean {
    return this.session?.closed ?? true;
  }

  /**
   * Like Figma: the UI goes away, and so do the plugin's handlers and its use
   * of the API — every call throws and pending promises never settle
   * (session.ts). A relaunch starts from scratch.
   */
  closePlugin(message?: string): void {
    // The same "visual bell toast" as notify's (typings `PluginAPI.closePlugin`); its limit is not stated: taken as notify's.
    if (message !== undefined) this.notifications.push({ message: shownInToast(message), error: false });
    this.endSession();
  }

  /** Like Figma: an image that decodes as PNG, JPEG or GIF, each side 1–4096 px (decode.ts); the hash is the SHA-1 of the bytes. */
  createImage(data: Uint8Array): Image {
    const hash = sha1Hex(data);
    const existing = this.images.get(hash);
    if (existing) return existing;
    const size = checkCreateImage(data, hash);
    const image = new SimImage(hash, data.slice(), size, {
      read: () => void (this.byteReads += 1),
      fault: () => this.imageFaults.get(hash),
    });
    this.images.set(hash, image);
    return image;
  }

  getImageByHash(hash: string): Image | null {
    return this.images.get(hash) ?? null;
  }

  async getNodeByIdAsync(id: string): Promise<BaseNode | null> {
    const n = this.nodes.get(id);
    return n && !n.removed && !n.hiddenFromPlugin() ? (n as unknown as BaseNode) : null;
  }

  on(type: 'selectionchange', callback: () => void): void {
    let set = this.handlers.get(type);
    if (!set) this.handlers.set(type, (set = new Set()));
    set.add(callback);
  }

  // ---- test-side controls (not part of Figma's API) ----

  /**
   * Run the plugin (a menu command or a relaunch button): a new session, whose
   * `figma` is what the plugin's code is given. A run still open ends first,
   * as only one run of a plugin is open at a time.
   */
  launch(): FigmaApi {
    this.endSession();
    this.closeAt = undefined;
    this.shownHtml = undefined;
    // A run starts with the page the user views loaded (dynamic-page), or the whole document.
    this.loaded = new Set(DYNAMIC_PAGES ? [this.viewed] : (this.root.kids.list as SimPage[]));
    const session = new PluginSession({
      refusal: (target, key) => {
        // Every touch of the API by this run passes here first: what the document does next, it does for this user.
        this.people.acting = this;
        return this.refusal(target, key);
      },
      gone: (target, key) => (target instanceof SimNode && target.removed && !READABLE_WHEN_REMOVED.has(key) ? `The node (with id ${target.id}) does not exist` : undefined),
      calling: (method) => this.closesAt(method, true) || this.pausing(method),
      resolved: (method) => void this.closesAt(method, false),
    });
    this.session = session;
    return session.toPlugin(this) as FigmaApi;
  }

  /** Why the plugin's run may not touch `key` of `target`: an invisible layer inside an instance, or what a page not loaded holds. */
  private refusal(target: object, key: string): string | undefined {
    if (target instanceof SimNode && target.hiddenFromPlugin()) return `The node (instance sublayer or table cell) with id "${target.id}" does not exist`;
    if (target === this.root && DOCUMENT_SEARCHES.has(key)) {
      return `DocumentNode.${key}: with "documentAccess": "dynamic-page", call figma.loadAllPagesAsync first (not simulated: it "may be slow for large documents")`;
    }
    if (target instanceof SimPage && !this.loaded.has(target) && PAGE_CONTENT.has(key)) {
      return `PageNode.${key}: with "documentAccess": "dynamic-page", call loadAsync() on page "${target.name}" first`;
    }
    // Resolving a promise with a node probes its `then`: that is not the plugin reading the node.
    const page = target instanceof SimNode && key !== 'then' ? target.pageOf() : null;
    if (page && !this.loaded.has(page)) return `The node with id "${(target as SimNode).id}" is on page "${page.name}", which is not loaded ("documentAccess": "dynamic-page": call its loadAsync first)`;
    return undefined;
  }

  /** The user closes the plugin window (its close button), as Figma does it: the same end as `closePlugin`, without a message. */
  closeWindow(): void {
    this.endSession();
  }

  /**
   * The user closes the plugin window right after the plugin's `count`th call
   * of the API method `method` (e.g. `setFillsAsync`) from now has taken
   * effect and resolved — before the plugin's code after that `await` runs.
   * Resolves once closed.
   */
  closeWindowAfter(method: string, count = 1): Promise<void> {
    return new Promise((closed) => (this.closeAt = { method, count, during: false, closed }));
  }

  /**
   * The user closes the plugin window while the plugin's `count`th call of the
   * async API method `method` from now is pending, before it takes effect: it
   * never does, and never settles. Resolves once closed.
   */
  closeWindowDuring(method: string, count = 1): Promise<void> {
    return new Promise((closed) => (this.closeAt = { method, count, during: true, closed }));
  }

  /**
   * The plugin's `count`th call of the async API method `method` from now
   * waits before it takes effect until the test releases it, as a call that
   * has to go to Figma's servers may: the plugin is paused at that `await`,
   * while other users' sessions go on. `reached` resolves when it is called.
   */
  pauseAt(method: string, count = 1): { reached: Promise<void>; release: () => void } {
    let reached!: () => void;
    let release!: () => void;
    const call = new Promise<void>((resolve) => (reached = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    this.pauses.push({ method, count, reached, released });
    return { reached: call, release };
  }

  /** The wait the call of `method` makes now, if a pause is due at it. */
  private pausing(method: string): Promise<void> | false {
    const i = this.pauses.findIndex((p) => p.method === method && --p.count === 0);
    if (i === -1) return false;
    const [pause] = this.pauses.splice(i, 1);
    pause!.reached();
    return pause!.released;
  }

  /** Whether the window closes now, at a call of `method` (`during`) or as one resolves. */
  private closesAt(method: string, during: boolean): boolean {
    const at = this.closeAt;
    if (!at || at.method !== method || at.during !== during || --at.count > 0) return false;
    this.closeAt = undefined;
    this.closeWindow();
    at.closed();
    return true;
  }

  private endSession(): void {
    if (!this.session || this.session.closed) return;
    // "If the message includes a custom action button, it will be closed automatically when the plugin closes" (typings `notify`).
    this.toasts = this.toasts.filter((t) => t.session !== this.session || t.options.button === undefined);
    this.session.close();
    this.ui.close();
    this.ui.onmessage = undefined;
    this.handlers.clear();
  }

  /**
   * The file is closed, by everyone who has it open, and opened again (reopen.ts): each one's plugin run closes
   * and their toasts, undo history and selection go; the images no paint of the document references are dropped
   * (`getImageByHash` answers null for them). Nodes, their plugin data and relaunch data, and clientStorage stay.
   */
  reopenFile(): void {
    for (const person of this.people.all) person.endFileSession();
    for (const page of this.root.kids.list as SimPage[]) page.selection = [];
    const used = imagesInUse(this.root);
    for (const hash of [...this.images.keys()]) if (!used.has(hash)) this.images.delete(hash);
  }

  /** What of this user's session ends when the file closes. */
  private endFileSession(): void {
    this.endSession();
    this.toasts = [];
    this.closeAt = undefined;
    this.pauses = [];
    this.undoSteps.length = 0;
    this.pendingChanges = [];
  }

  /** The id the next created node will get. */
  nextIdPeek(): string {
    return `1:${this.idCounter + 1}`;
  }

  /** Select layers on the current page and fire `selectionchange`, as a click on the canvas does. */
  select(...nodes: SimNode[]): void {
    this.viewed.selection = nodes.map(asScene);
    for (const cb of this.handlers.get('selectionchange') ?? []) cb();
  }

  rect(name: string, fills: Paint[], type: 'RECTANGLE' | 'ELLIPSE' | 'TEXT' = 'RECTANGLE'): SimShape {
    return new SimShape(this.doc, name, type, fills);
  }
  text(name: string, fills: Paint[] | PluginAPI['mixed']): SimShape {
    return new SimShape(this.doc, name, 'TEXT', fills);
  }
  frame(name: string, children: SimNode[], fills: Paint[] = [], type: 'FRAME' | 'COMPONENT' | 'INSTANCE' = 'FRAME'): SimFrame {
    const f = new SimFrame(this.doc, name, type, fills);
    for (const c of children) f.adopt(c);
    return f;
  }
  group(name: string, children: SimNode[]): SimGroup {
    const g = new SimGroup(this.doc, name);
    for (const c of children) g.appendChild(asScene(c));
    return g;
  }
  /** Put layers on the current page (top level). */
  place(...nodes: SimNode[]): void {
    for (const n of nodes) this.viewed.appendChild(asScene(n));
    // Building the document is not something the plugin did: no undo step for it.
    this.pendingChanges = [];
  }
  /** Add image bytes to the file as if imported earlier (not part of any undo step). */
  addImage(bytes: Uint8Array): string {
    const hash = this.createImage(bytes).hash;
    return hash;
  }
  /** What the layer shows of its image fill number `index` (see paint-view.ts). */
  imageView(node: SimShape, index = 0): ImageView {
    const paint = node.fills === this.mixed ? undefined : node.fills[index];
    const image = paint?.type === 'IMAGE' && paint.imageHash ? this.images.get(paint.imageHash) : undefined;
    if (paint?.type !== 'IMAGE' || !image) throw new Error(`"${node.name}" has no image fill ${index} with an image in the file`);
    return viewOf(node, paint, image.size);
  }
  imageBytes(hash: string): Uint8Array | undefined {
    return (this.images.get(hash) as unknown as { bytes: Uint8Array } | undefined)?.bytes.slice();
  }
}

/** What a page holds, reachable only once it is loaded (typings `ChildrenMixin`: "If the manifest contains "documentAccess": "dynamic-page", and the node is a PageNode, you must first call PageNode.loadAsync"). */
const PAGE_CONTENT = new Set(['children', 'appendChild', 'insertChild', 'findAll', 'findOne', 'findChildren', 'findChild', 'findAllWithCriteria', 'findWidgetNodesByWidgetId']);
/**
 * What of a removed node the plugin may still read: `removed` itself, which is how "you should write your code
 * defensively and check that the nodes haven't been removed by the user" (typings `BaseNodeMixin.removed`), and its
 * `id`, the handle kept to look it up again (`getNodeByIdAsync` then answers null). Anything else throws "The node
 * (with id …) does not exist", as Figma does. (`then` is probed by a promise resolved with a node, not by the plugin.)
 */
const READABLE_WHEN_REMOVED = new Set(['removed', 'id', 'then']);
/** Searches of the whole document, which need `figma.loadAllPagesAsync` first (typings `DocumentNode.findAllWithCriteria`). */
const DOCUMENT_SEARCHES = new Set(['findAll', 'findOne', 'findAllWithCriteria', 'findWidgetNodesByWidgetId']);

/** An image fill as the properties panel makes it, its numbers as Figma keeps them (paints.ts `asStored`). */
export function imageFill(hash: string, extra: Partial<Omit<ImagePaint, 'type' | 'imageHash'>> = {}): ImagePaint {
  return asStored({ type: 'IMAGE', imageHash: hash, scaleMode: 'FILL', ...extra });
}

export function solidFill(r: number, g: number, b: number): SolidPaint {
  return asStored({ type: 'SOLID', color: { r, g, b } });
}

/** What a toast shows of a message: its first 100 characters (typings `PluginAPI.notify`). */
export const TOAST_LIMIT = 100;
function shownInToast(message: string): string {
  return [...message].slice(0, TOAST_LIMIT).join('');
}
