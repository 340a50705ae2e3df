/**
 * Keeping results inside Figma's image limit. `createImage` refuses images
 * wider or taller than 4096 px, so a resize the user asks for is turned into
 * one that fits before anything is sent, and the user is told.
 */
import { FIGMA_MAX_SIDE } from './image-header';

/** The resize the user picked in the options. */
export type ResizeChoice =
  | { kind: 'none' }
  /** Target long edge in pixels (the service's `long`, 32–10000). */
  | { kind: 'long'; px: number }
  /** Scale in percent (the service's `scale`; 200 doubles each side). */
  | { kind: 'scale'; percent: number };

export interface Size {
  width: number;
  height: number;
}

/** Resize parameters to send: a subset of the service's `/pfc` parameters. */
export interface ResizeRequest {
  long?: number;
  scale?: number;
}

export interface ResizePlan {
  /** What to send; empty when no resize is asked for. */
  request: ResizeRequest;
  /** The output size this request should give (pixels). */
  expected: Size;
  /** What was changed and why, for the user. */
  notes: string[];
}

/** `size` scaled so that its long edge is `long` (rounded, at least 1 px). */
export function scaleToLong(size: Size, long: number): Size {
  const f = long / Math.max(size.width, size.height);
  return { width: Math.max(1, Math.round(size.width * f)), height: Math.max(1, Math.round(size.height * f)) };
}

/** `size` shrunk to fit `max`×`max`, or unchanged when it already fits. */
export function fitWithin(size: Size, max = FIGMA_MAX_SIDE): Size {
  return Math.max(size.width, size.height) <= max ? size : scaleToLong(size, max);
}

/**
 * The resize to request for an input of `input` pixels so that the output fits
 * `max`×`max` (default 4096, Figma's limit).
 */
export function planResize(choice: ResizeChoice, input: Size, max = FIGMA_MAX_SIDE): ResizePlan {
  const long = Math.max(input.width, input.height);
  const limitNote = `Figma accepts images up to ${max}×${max} px`;
  switch (choice.kind) {
    case 'none':
      if (long <= max) return { request: {}, expected: input, notes: [] };
      return {
        request: { long: max },
        expected: scaleToLong(input, max),
        notes: [`${input.width}×${input.height} is larger than ${limitNote}; requested a ${max} px long edge`],
      };
    case 'long': {
      if (choice.px <= max) return { request: { long: choice.px }, expected: scaleToLong(input, choice.px), notes: [] };
      return {
        request: { long: max },
        expected: scaleToLong(input, max),
        notes: [`asked for a ${choice.px} px long edge; ${limitNote}, so ${max} px was requested`],
      };
    }
    case 'scale': {
      const expected = { width: Math.round((input.width * choice.percent) / 100), height: Math.round((input.height * choice.percent) / 100) };
      if (Math.max(expected.width, expected.height) <= max) return { request: { scale: choice.percent }, expected, notes: [] };
      return {
        request: { long: max },
        expected: scaleToLong(input, max),
        notes: [`${choice.percent} % of ${input.width}×${input.height} would be ${expected.width}×${expected.height}; ${limitNote}, so a ${max} px long edge was requested`],
      };
    }
  }
}
