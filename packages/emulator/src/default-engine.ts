/**
 * The imaging engine the emulator's servers use when the caller brings none:
 * `@pfc/engine`'s `createImagingEngine()`, made once per process and shared by
 * the Web API and both container emulations (the engine's models load once
 * per process in its worker threads; one set of hooks is enough for all).
 */
import { createImagingEngine } from '@pfc/engine';
import type { ImagingEngine } from './engine';

let shared: ImagingEngine | undefined;

/** The process-wide default engine, created on first use. Pass `engine: {}` to a server to run it without one. */
export function defaultImagingEngine(): ImagingEngine {
  shared ??= createImagingEngine();
  return shared;
}
