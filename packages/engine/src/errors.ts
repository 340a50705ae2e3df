/**
 * Errors of the engine. Every one names the limit or parameter at fault, so a
 * service can put `message` into a job's `statusText` as it is.
 */

/** Why a job cannot be processed. */
export type EngineErrorCode = 'unsupported-input' | 'limit' | 'missing-resource' | 'processing';

/** An image the engine refuses or could not process. */
export class EngineError extends Error {
  override readonly name = 'EngineError';
  constructor(
    readonly code: EngineErrorCode,
    message: string,
  ) {
    super(message);
  }
}
