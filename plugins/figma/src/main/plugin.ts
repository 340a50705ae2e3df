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
  type UiRequest,
  type UiToMain,
} from '../shared/messages';
import { applyResult, type RunState } from './apply';
import { collectSelection, planImages, summarise } from './collect';
import type { FigmaApi } from './host';
import { normaliseOptions } from '../shared/run-options';
import { loadBackendConfig, loadSettings, saveSettings } from './settings-store';

/** clientStorage name of the last run's options. */
export const LAST_OPTIONS_KEY = 'pfc.lastOptions.v1';

/** Size of the plugin window (px). */
export const UI_SIZE = { width: 380, height: 620 } as const;

type RequestOf<K extends RequestType> = Extract<UiRequest, { type: K }>;

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Finish words for the notification at the end of a run. */
function runMessage(s: { done: number; failed: number; skipped: number; cancelled: boolean }): string {
  const parts = [`${s.done} image${s.done === 1 ? '' : 's'} corrected`];
  if (s.failed) parts.push(`${s.failed} failed`);
  if (s.skipped) parts.push(`${s.skipped} skipped`);
  return (s.cancelled ? 'Cancelled: ' : '') + parts.join(', ');
}

/** Start the plugin on `figma` with the UI document `html` (Figma's `__html__`). */
export function startPlugin(figma: FigmaApi, html: string): void {
  const command: Command = isCommand(figma.command) ? figma.command : 'correct';
  const runs = new Map<string, RunState>();
  let runCounter = 0;

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
    if (figma.currentPage.selection.length === 0) throw new Error('Select one or more layers with image fills first');
    const { placement, resize } = req.options;
    await figma.clientStorage.setAsync(LAST_OPTIONS_KEY, normaliseOptions(req.options));
    const collection = collectSelection(figma, placement);
    const { images, skipped } = await planImages(figma, collection, resize);
    const runId = `run-${++runCounter}`;
    const nodesByHash = new Map([...collection.images].map(([hash, img]) => [hash, img.nodeIds]));
    runs.set(runId, { runId, placement, nodesByHash, roots: collection.roots, copies: new Map(), changed: new Set() });
    return { runId, placement, images, skipped: [...collection.skipped, ...skipped] };
  }

  async function readImage(req: RequestOf<'image/read'>): Promise<Requests['image/read']['result']> {
    runOf(req.runId);
    const image = figma.getImageByHash(req.hash);
    if (!image) throw new Error('the image is no longer in this file');
    return { bytes: await image.getBytesAsync() };
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
        post({ type: 'init', command, settings: await loadSettings(figma.clientStorage), selection: summarise(figma), lastOptions: await lastOptions() });
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
      case 'image/apply':
        return answer(msg, () => applyResult(figma, runOf(msg.runId), msg.hash, msg.bytes, msg.relaunchNote));
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
    dispatch(msg as UiToMain).catch((err: unknown) => figma.notify(`Perfectly Clear: ${message(err)}`, { error: true }));
  };
  figma.on('selectionchange', () => post({ type: 'selection', selection: summarise(figma) }));
}
