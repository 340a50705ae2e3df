/**
 * @pfc/emulator — a local, stateful emulator of the Web API v2 and the two
 * self-hosted containers, doing real image work with sharp. See README.md for routes, choices and limits.
 */
export { startEmulator, type EmulatorHandle, type EmulatorUrls } from './server';
export { startEmulatorProcess, type EmulatorProcess, type EmulatorProcessExit, type EmulatorProcessOptions, type EmulatorProcessUrls } from './process';
export { DEFAULT_LIMITS, type EmulatorLimits, type EmulatorOptions } from './options';
export { validateFaultConfig, type FaultConfig, type JobFaults, type RouteFaults } from './faults';
export type { EmulatorJobRecord, EmulatorStats } from './control/routes-control';
export type { Detection, ImagingEngine, LookContext, RawImage } from './engine';
export { processImage, jobParams, type ProcessContext, type ProcessResult } from './webapi/process';
export { JobRejection } from './webapi/limits';
export * from './container/index';
