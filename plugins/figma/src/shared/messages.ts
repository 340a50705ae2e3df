/**
 * Every message between the main thread (document access) and the UI iframe
 * (network, decoding). Figma wraps them in `{ pluginMessage }` envelopes; both
 * sides dispatch them with one exhaustive switch. Requests from the UI carry a
 * `requestId` and get exactly one `reply` with the same id, so concurrent
 * requests (several images at once) never get each other's answers.
 */
import type { CropRegion } from './crop';
import type { ResizeRequest } from './fit';
import type { RunOptions } from './run-options';
import type { ApiKeyChange, BackendConfig, PublicSettings, Settings } from './settings';

/**
 * Menu and relaunch commands (`figma.command`), as named in manifest.json.
 * `correct-again` (relaunch button) re-runs with the options saved on the
 * layer; `restore` (menu and relaunch button) puts the original images back
 * without opening a window.
 */
export const COMMANDS = ['correct', 'remove-background', 'ai-art', 'settings', 'correct-again', 'restore'] as const;
export type Command = (typeof COMMANDS)[number];

export function isCommand(v: unknown): v is Command {
  return typeof v === 'string' && (COMMANDS as readonly string[]).includes(v);
}

/** Where results go: the image fill swapped in place, or a duplicate of each selected layer beside it. */
export type Placement = 'replace' | 'copy';

/** A layer or fill the run leaves alone, and why. */
export interface Skip {
  nodeId: string;
  nodeName: string;
  reason: string;
}

/** One distinct image of the selection, corrected once however many fills use it. */
export interface ImageJob {
  /** Figma's image hash (the id of the image bytes). */
  hash: string;
  /** Pixels. */
  width: number;
  height: number;
  /** How many image fills use it, on how many layers. */
  fillCount: number;
  nodeCount: number;
  /** Names of the first few layers using it, for the progress list. */
  nodeNames: string[];
  /** Resize parameters that keep the output within Figma's 4096 px (empty when none). */
  resize: ResizeRequest;
  /** The output size the resize should give (pixels). */
  expected: { width: number; height: number };
  /** What was adjusted to fit Figma, for the user. */
  notes: string[];
}

/** What the main thread found in the selection for a run. */
export interface RunPlan {
  runId: string;
  placement: Placement;
  images: ImageJob[];
  skipped: Skip[];
  /** What the user should know before accepting (e.g. a main component's instances change too). */
  warnings: string[];
}

/** A short count of the selection for the header (no bytes read). */
export interface SelectionSummary {
  layers: number;
  images: number;
  fills: number;
}

export interface ApplyResult {
  /** Hash of the new image. */
  newHash: string;
  /** Fills now holding it, and layers changed or created. */
  fillsChanged: number;
  nodesChanged: number;
  copiesCreated: number;
  warnings: string[];
}

export interface RunSummary {
  /** Images put back into the document. */
  done: number;
  failed: number;
  skipped: number;
  /** Corrected, but the user rejected the result. */
  rejected: number;
  cancelled: boolean;
}

/** The requests the UI makes, by type: their parameters and what the reply carries. */
export interface Requests {
  /** Plan a run with these options (the main thread also remembers them for the next run). */
  'run/plan': { params: { options: RunOptions }; result: RunPlan };
  /** The image's bytes once, for correction; or why it is skipped (GIF, other formats). */
  'image/read': { params: { runId: string; hash: string }; result: { bytes: Uint8Array; format: 'png' | 'jpeg' } | { skip: string } };
  /**
   * Hand the result for the image `hash` to Figma as soon as it is made
   * (`createImage`: checked against Figma's limits, kept with the file's
   * images, on no layer yet). The UI then keeps no full-size bytes while the
   * user reviews; nothing on the canvas changes.
   */
  'image/stage': { params: { runId: string; hash: string; bytes: Uint8Array }; result: { newHash: string } };
  'image/apply': {
    /**
     * Put the result staged for `hash` into its layers. `crop`: the part of
     * the original the result shows, when the service cropped it (the fills
     * keep their framing).
     */
    params: { runId: string; hash: string; relaunchNote: string; crop?: CropRegion };
    result: ApplyResult;
  };
  'run/end': { params: { runId: string; summary: RunSummary }; result: { message: string } };
  'settings/get': { params: Record<string, never>; result: PublicSettings };
  'settings/save': { params: { settings: Settings; apiKey: ApiKeyChange }; result: PublicSettings };
  'backend/config': { params: Record<string, never>; result: BackendConfig };
}
export type RequestType = keyof Requests;

/** A request as sent: `{ type, requestId, ...params }`, one union member per type. */
export type UiRequest = { [K in RequestType]: { type: K; requestId: string } & Requests[K]['params'] }[RequestType];

/** Messages from the UI that expect no reply. */
export type UiEvent =
  | { type: 'ui/ready' }
  | { type: 'notify'; message: string; error?: boolean }
  /** Stop a planning in progress (the reply to `run/plan` then fails with "Cancelled"). */
  | { type: 'plan/cancel' }
  | { type: 'close' };

export type UiToMain = UiRequest | UiEvent;

/** A successful reply, typed by the request it answers. */
export type OkReply = { [K in RequestType]: { type: 'reply'; request: K; requestId: string; ok: true; result: Requests[K]['result'] } }[RequestType];
export interface ErrorReply {
  type: 'reply';
  request: RequestType;
  requestId: string;
  ok: false;
  /** A message for the user; never contains the API key. */
  error: string;
}

export type MainToUi =
  | {
      type: 'init';
      command: Command;
      settings: PublicSettings;
      selection: SelectionSummary;
      lastOptions: RunOptions | null;
      /** For `correct-again`: the options saved on the selected layers by their last correction. */
      againOptions: RunOptions | null;
    }
  | { type: 'selection'; selection: SelectionSummary }
  | { type: 'plan/progress'; done: number; total: number }
  | OkReply
  | ErrorReply;

/** Shape check for messages arriving from the other side (anything else is ignored). */
export function isMessage(v: unknown): v is { type: string } {
  return typeof v === 'object' && v !== null && typeof (v as { type?: unknown }).type === 'string';
}

/** For the `default` branch of an exhaustive switch: a compile error when a case is missing. */
export function unreachable(v: never): never {
  throw new Error(`unhandled message ${JSON.stringify(v)}`);
}
