/**
 * `@pfc/node-io`: Node-only file helpers shared by `@pfc/engine`,
 * `@pfc/emulator`, `@pfc/batch` and `@pfc/cli`. It depends on no other
 * workspace package, so every one of them can use it without a cycle
 * (`@pfc/core` cannot hold it: core imports no `node:*`). Inputs are opened
 * through `openInput`, which never waits on a named pipe.
 */
export {
  TEMP_SUFFIX, tempPathFor, isTempName, writeAtomic, writeFileAtomic, appendFileDurable, copyFileAtomic, moveFileAtomic, makeFolder, syncFolder, truncateUtf8,
  DestinationExistsError, type AtomicWriteOptions,
} from './atomic';
export { HashTap, streamIntoNewFile, writeStreamAtomic, type WrittenFile } from './stream';
export { copyExtendedAttributes, extendedAttributesAvailable, ExtendedAttributeError } from './xattrs';
export { processAlive } from './process';
export { serveTasks, WorkerPool, type WorkerPoolOptions, type WorkerReply, type WorkerRequest } from './worker-pool';
export { notRegularReason, NotRegularFileError, openInput, openInputSync, type FileType } from './regular-files';
