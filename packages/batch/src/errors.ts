/** Errors of the batch engine that are the caller's to fix (the CLI maps them to exit code 2). */
export class BatchUsageError extends Error {
  override name = 'BatchUsageError';
  constructor(
    message: string,
    /** `not-found`: an input path does not exist; `bad-output`: outputs would overwrite inputs or land in an input folder. */
    readonly code: 'not-found' | 'bad-output' | 'bad-params',
  ) {
    super(message);
  }
}
