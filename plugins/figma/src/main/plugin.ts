/**
 * The main thread: opens the UI, answers its requests with one exhaustive
 * dispatcher, and is the only side that touches the document. It makes no
 * network calls (the UI iframe does).
 */
import {
  isCommand,
  isMessage,
  unreachable,
  type Command,
  type MainToUi,
  type OkReply,
  type RequestType,
  type Requests,
  type RunSummary,
  type UiRequest,
  type UiToMain,
} from '../shared/messages';
import { applyResult, stageResult, type RunState } from './apply';
import { collectSelection, componentWarnings, planImages, readForCorrection, summarise } from './collect';
import { layersWithData, pageOf, readingHiddenLayers, withHiddenInstanceLayers, type FigmaApi } from './host';
import { OPTIONS_KEY } from './relaunch';
import { restoreMessage, restoreSelection, restoreStatements, type RestoreResult } from './restore';
import { showRestoreWindow } from './restore-window';
import { normaliseOptions, type RunOptions } from '../shared/run-options';
import { loadBackendConfig, loadSettings, saveSettings } from './settings-store';
import { finishUnfinished } from './unfinished';
import { clientId } from './leases';

/** clientStorage name of the last run's options. */
export const LAST_OPTIONS_KEY = 'pfc.lastOptions.v1';

/** Size of the plugin window (px). */
export const UI_SIZE = { width: 380, height: 620 } as const;

type RequestOf<K extends RequestType> = Extract<UiRequest, { type: K }>;

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** `make`'s promise, made at the first call (read only when needed: most starts never ask). */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}

/** Finish words for the notification at the end of a run. */
function runMessage(s: RunSummary): string {
  const parts = [`${s.done} image${s.done === 1 ? '' : 's'} corrected`];
  if (s.rejected) parts.push(`${s.rejected} rejected`);
  if (s.failed) parts.push(`${s.failed} failed`);
  if (s.skipped) parts.push(`${s.skipped} skipped`);
  return (s.cancelled ? 'Cancelled: ' : '') + parts.join(', ');
}

/**
 * The options saved on the first selected layer (or one below it) that a
 * correction changed. Hidden layers inside instances are read too: a run that
 * included hidden layers may have corrected one, and the user may have
 * selected one in the layers panel, which cannot even be read otherwise.
 */
function savedOptions(figma: FigmaApi): RunOptions | null {
  return readingHiddenLayers(figma, () => {
    for (const root of figma.currentPage.selection) {
      for (const n of [root, ...layersWithData(root, OPTIONS_KEY)]) {
        const options = optionsOn(n);
        if (options) return options;
      }
    }
    return null;
  });
}

/** The options a correction saved on `node`, if it holds any this plugin can read. */
function optionsOn(node: BaseNode): RunOptions | null {
  const raw = node.getPluginData(OPTIONS_KEY);
  if (!raw) return null;
  try {
    return normaliseOptions(JSON.parse(raw));
  } catch {
    // Not ours to interpret; look further.
    return null;
  }
}

/**
 * What a window closed during an earlier "Apply accepted" left unfinished,
 * settled before the plugin does anything else (unfinished.ts): "Restore" and
 * "Correct again" find each layer as a finished apply leaves it. Never fails
 * the start: what cannot be settled now is tried again at the next.
 */
function settleUnfinished(figma: FigmaApi, client: () => Promise<string>): Promise<void> {
  return finishUnfinished(figma, client).catch((err: unknown) => void figma.notify(`Perfectly Clear could not finish layers its closed window left (${message(err)})`, { error: true }));
}

/** How long the toast of a restore with more to say stays up (ms), its Why button with it. */
export const RESTORE_TOAST_MS = 10_000;

/**
 * The end of Restore: the layers left as they are selected, and the toast. When everything fits in it the plugin
 * closes with it; otherwise the toast has a Why button that opens the whole account, and the plugin closes when the
 * toast goes without it (a button's toast is "closed automatically when the plugin closes": typings `notify`).
 */
function endRestore(figma: FigmaApi, r: RestoreResult): void {
  selectLeftLayers(figma, r.leftLayers);
  const { text, more } = restoreMessage(r);
  if (!more) return figma.closePlugin(text);
  figma.notify(text, {
    timeout: RESTORE_TOAST_MS,
    button: { text: 'Why', action: () => showRestoreWindow(figma, restoreStatements(r)) },
    onDequeue: (reason) => {
      if (reason !== 'action_button_click') figma.closePlugin();
    },
  });
}

/**
 * Select the layers Restore left as they are, those still there on the page in view. Restore waited on Figma, and
 * meanwhile a layer may have been deleted ("check that the nodes haven't been removed by the user", typings
 * `BaseNodeMixin.removed`) or the user gone to another page; a page's selection holds its own layers (typings
 * `PageNode.selection`). Some may be hidden inside instances, readable only with the flag off.
 */
function selectLeftLayers(figma: FigmaApi, layers: readonly SceneNode[]): void {
  const page = figma.currentPage.id;
  const here = readingHiddenLayers(figma, () => layers.filter((n) => !n.removed && pageOf(n)?.id === page));
  if (here.length > 0) figma.currentPage.selection = here;
}

/**
 * Restore, then its end (`endRestore`). Whatever fails, the plugin closes with a toast saying what was done: it has
 * no window, and would otherwise stay running with nothing on screen.
 */
async function runRestore(figma: FigmaApi): Promise<void> {
  let r: RestoreResult;
  try {
    r = await restoreSelection(figma);
  } catch (err) {
    return figma.closePlugin(`Nothing was changed: the originals could not be restored (${message(err)})`);
  }
  try {
    endRestore(figma, r);
  } catch (err) {
    figma.closePlugin(`${restoreStatements(r)[0] ?? 'Restore ended'} (then: ${message(err)})`);
  }
}

/** Start the plugin on `figma` with the UI document `html` (Figma's `__html__`). */
export function startPlugin(figma: FigmaApi, html: string): void {
  // Skipping invisible layers inside instances makes every walk much faster (typings,
  // `PluginAPI.skipInvisibleInstanceChildren`); the walks that need them (a run including
  // hidden layers, a restore) reach them through withHiddenInstanceLayers.
  figma.skipInvisibleInstanceChildren = true;
  const command: Command = isCommand(figma.command) ? figma.command : 'correct';
  const client = once(() => clientId(figma.clientStorage));
  const settled = settleUnfinished(figma, client);
  if (command === 'restore') {
    void settled.then(() => runRestore(figma));
    return;
  }
  const runs = new Map<string, RunState>();
  let runCounter = 0;
  let planCancelled = false;

  const post = (msg: MainToUi) => figma.ui.postMessage(msg);

  async function answer<K extends RequestType>(req: RequestOf<K>, work: () => Promise<Requests[K]['result']>): Promise<void> {
    try {
      const result = await work();
      post({ type: 'reply', request: req.type, requestId: req.requestId, ok: true, result } as OkReply);
    } catch (err) {
      post({ type: 'reply', request: req.type, requestId: req.requestId, ok: false, error: message(err) });
    }
  }

  async function lastOptions() {
    const raw: unknown = await figma.clientStorage.getAsync(LAST_OPTIONS_KEY);
    return raw === undefined ? null : normaliseOptions(raw);
  }

  function runOf(runId: string): RunState {
    const run = runs.get(runId);
    if (!run) throw new Error(`run ${runId} is not active (it ended or the plugin restarted)`);
    return run;
  }

  async function plan(req: RequestOf<'run/plan'>): Promise<Requests['run/plan']['result']> {
    planCancelled = false;
    if (figma.currentPage.selection.length === 0) throw new Error('Select one or more layers with image fills first');
    const options = normaliseOptions(req.options);
    const { placement, resize, includeHidden } = options;
    await figma.clientStorage.setAsync(LAST_OPTIONS_KEY, options);
    // Hidden layers inside instances are walked only when the user asked for hidden layers.
    const collection = await withHiddenInstanceLayers(figma, includeHidden, () => collectSelection(figma, placement, includeHidden));
    const control = { cancelled: () => planCancelled, progress: (done: number, total: number) => post({ type: 'plan/progress', done, total }) };
    const { images, skipped, sources, alsoShown } = await planImages(figma, collection, resize, control);
    const warnings = await componentWarnings(collection.components);
    const runId = `run-${++runCounter}`;
    const nodesByHash = new Map([...collection.images].map(([hash, img]) => [hash, img.nodeIds]));
    runs.set(runId, { runId, placement, nodesByHash, roots: collection.roots, sources, alsoShown, copies: new Map(), staged: new Map(), changed: new Set(), includeHidden, optionsJson: JSON.stringify(options), client: await client() });
    return { runId, placement, images, skipped: [...collection.skipped, ...skipped], warnings };
  }

  async function readImage(req: RequestOf<'image/read'>): Promise<Requests['image/read']['result']> {
    const run = runOf(req.runId);
    return readForCorrection(figma, run.sources.get(req.hash)?.hash ?? req.hash);
  }

  async function endRun(req: RequestOf<'run/end'>): Promise<Requests['run/end']['result']> {
    runOf(req.runId);
    runs.delete(req.runId);
    // Everything the run changed becomes one undo step.
    figma.commitUndo();
    const text = runMessage(req.summary);
    figma.notify(text, { error: req.summary.failed > 0 && req.summary.done === 0 });
    return { message: text };
  }

  async function dispatch(msg: UiToMain): Promise<void> {
    switch (msg.type) {
      case 'ui/ready':
        post({
          type: 'init',
          command,
          settings: await loadSettings(figma.clientStorage),
          selection: summarise(figma),
          lastOptions: await lastOptions(),
          againOptions: command === 'correct-again' ? savedOptions(figma) : null,
        });
        return;
      case 'plan/cancel':
        planCancelled = true;
        return;
      case 'notify':
        figma.notify(msg.message, { error: msg.error === true });
        return;
      case 'close':
        figma.closePlugin();
        return;
      case 'run/plan':
        return answer(msg, () => plan(msg));
      case 'image/read':
        return answer(msg, () => readImage(msg));
      case 'image/stage':
        return answer(msg, async () => stageResult(figma, runOf(msg.runId), msg.hash, msg.bytes));
      case 'image/apply':
        return answer(msg, () => applyResult(figma, runOf(msg.runId), msg.hash, msg.relaunchNote, msg.crop));
      case 'run/end':
        return answer(msg, () => endRun(msg));
      case 'settings/get':
        return answer(msg, () => loadSettings(figma.clientStorage));
      case 'settings/save':
        return answer(msg, () => saveSettings(figma.clientStorage, msg.settings, msg.apiKey));
      case 'backend/config':
        return answer(msg, () => loadBackendConfig(figma.clientStorage));
      default:
        return unreachable(msg);
    }
  }

  figma.showUI(html, { themeColors: true, title: 'Perfectly Clear', ...UI_SIZE });
  figma.ui.onmessage = (msg: unknown) => {
    if (!isMessage(msg)) return;
    // The window opens at once; its requests wait for the settling, which is quick unless an apply was cut short.
    settled.then(() => dispatch(msg as UiToMain)).catch((err: unknown) => figma.notify(`Perfectly Clear: ${message(err)}`, { error: true }));
  };
  figma.on('selectionchange', () => post({ type: 'selection', selection: summarise(figma) }));
}
