/**
 * @pfc/batch: the Node batch engine shared by the `pfc` CLI and the VS Code
 * extension. Plan a folder (`planBatch`), run the plan on any
 * `CorrectionBackend` (`runBatch`). The before/after HTML report is on its own
 * subpath, `@pfc/batch/report`, because it needs the native `sharp`: this entry
 * imports no native module, and loads `@pfc/emulator` only when the embedded
 * emulator is started, so hosts such as the VS Code extension bundle it as is.
 */
export { checkOutputWritable } from './output-check';
export { collectPlan, planBatch, planStream, type BatchPlan, type PlanOptions, type LeaveOut, type PlannedFile, type SkipCode, type SkippedPath, type StreamedPlan } from './plan';
export { emptyCounts, fileKind, LeftOutRecord, LEFT_OUT_KEPT, TALLY_KEYS, type LeftOutCounts, type LeftOutReporter, type Tally } from './left-out';
export { EXTENDED_ATTRIBUTES_NOT_KEPT, runBatch, worthAnotherAttempt, type RunOptions } from './runner';
export { PLAN_AHEAD } from './plan-feed';
export type { BatchEvent, BatchSummary, CorrectReason, FileResult, FileStatus, JobsAtOnce, ResultJob } from './events';
export { readResults, MAX_FAILURES_KEPT } from './results';
export { Manifest, MANIFEST_VERSION, settingsKey, isMirrorOutputFolder, type ManifestEntry } from './manifest';
export { decide, fileParams, fileSettings, isRefusal, outputOwner, REFUSALS, type Decision, type DecideOptions, type FileSettings, type OutputOwner, type RefusalName } from './decide';
export { keptOriginals, restoreOriginals, type RestoreOutcome, type RestoreRequest } from './restore';
export { lockFolders, FolderLockedError, type HeldLocks, type LockHolder, type LockOptions } from './lock';
export { CLI_TERMS, type HostTerms } from './host-terms';
export { checkReportPath, REPORT_MARKER } from './report-path';
export { keepOriginal } from './backup';
export {
  BACKUP_DIR, BACKUP_HISTORY_DIR, LOCK_FILE, DEFAULT_OUTPUT_DIR, DEFAULT_SUFFIX, MANIFEST_FILE, PARTIAL_SUFFIX, outputFormat, outputName, type OutputMode,
} from './paths';
export { sniffBytes, sniffFile, contentTypeOf, CAMERA_RAW, NOT_SUPPORTED, type MediaFormat, type MediaInfo } from './sniff';
export { LIMITS, limitViolation, acceptsVideo } from './limits';
export {
  fileInputFromPath, writeStreamAtomic, writeFileAtomic, copyFileAtomic, removePartials, InputUnreadableError, unreadableInput, type WrittenFile, type AtomicWriteOptions,
} from './files';
export { hashFile } from './hash';
export { sharpRgbCopy, type RgbCopy } from './upload';
export { NotRegularFileError } from '@pfc/node-io';
export { verifyOutput, OutputCheckError } from './verify';
export { BatchUsageError, DiskRefusedError, JobTimeoutError } from './errors';
export { formatBytes, formatDuration } from './format';
export { pendingFiles, type PendingOptions } from './pending';
export {
  openBackend, resolveBackendChoice, impliedParams, BACKEND_CHOICES, EMULATOR_API_KEY, type BackendChoice, type BackendId, type BackendSelection, type OpenedBackend, type SupervisedEmulatorEvent,
} from './backends';
export { createDirectContainerBackend, type DirectAccessOptions } from './container-direct';
export { createNodeFetch } from './node-fetch';
export { afterRestarts, type EmbeddedService, type RestartingService } from './embedded';
export { urlList, instanceJobsFor, type InstanceJobs, type InstanceJobsValue, MAX_INSTANCE_JOBS, DEFAULT_BGR_INSTANCE_JOBS, DEFAULT_CONTAINER_INSTANCE_JOBS, AUTO_BGR_INSTANCE_JOBS, AUTO_CONTAINER_INSTANCE_JOBS } from './fleet';
