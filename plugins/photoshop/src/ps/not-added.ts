/**
 * The document changed while the service worked, so that the result can no
 * longer go where it was meant: the document or the source layer is gone, a
 * lock now keeps it out, or the source's look changed under the strength's
 * mix. The step is rolled back and nothing in the document changes; the
 * paid-for result is not thrown away but opened as a document of its own
 * (run.ts). `reason` says what changed, for that message.
 */
export class ResultNotAddedError extends Error {
  override readonly name = 'ResultNotAddedError';

  constructor(readonly reason: string, message: string = reason) {
    super(message);
  }
}
