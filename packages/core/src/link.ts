/**
 * The abort wiring of one HTTP attempt. The caller's `AbortSignal` and an
 * inactivity timer feed one `AbortController` whose signal goes to `fetch`.
 * The link stays up while the request body is sent and while the response body
 * is read (so an abort or a stall during a multi-GB download still stops it),
 * and is released exactly once when the body ends, fails or is cancelled, so a
 * long-lived caller signal shared by thousands of requests holds no listeners.
 */
import { ConnectionError, InputChangedError, PfcError, TimeoutError, UserAbortError } from './errors';

/** Statuses a constructed `Response` may not have a body with. */
const NULL_BODY_STATUS = new Set([204, 205, 304]);

export class AttemptLink {
  readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timedOut = false;
  private released = false;
  private readonly onCallerAbort = () => this.controller.abort();

  constructor(
    private readonly caller: AbortSignal | undefined,
    /** Longest wait, in ms, for the next sign of progress. */
    readonly timeoutMs: number,
    /** `METHOD path` for error messages. */
    readonly label: string,
  ) {
    if (!caller) return;
    if (caller.aborted) this.controller.abort();
    else caller.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** (Re)start the inactivity timer: the attempt fails if nothing moves for `ms`. */
  arm(ms = this.timeoutMs): void {
    if (this.released) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort();
    }, ms);
  }

  /** Stop the timer while waiting on the consumer rather than on the network. */
  disarm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Drop the timer and the listener on the caller's signal. Idempotent. */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.disarm();
    this.caller?.removeEventListener('abort', this.onCallerAbort);
  }

  /** The typed error for a failure of this attempt. */
  failure(err: unknown): PfcError {
    if (this.caller?.aborted) return new UserAbortError();
    if (this.timedOut) return new TimeoutError(this.label, this.timeoutMs);
    if (err instanceof PfcError) return err;
    // A request body that failed with a typed error (e.g. `InputChangedError`) reaches us wrapped by fetch.
    const cause = (err as { cause?: unknown } | null)?.cause;
    if (cause instanceof PfcError) return cause;
    return new ConnectionError(this.label, { cause: err });
  }

  /**
   * A request body stream that restarts the inactivity timer each time `fetch`
   * pulls a chunk, so a long upload is limited by stalls, not by its length.
   * With `declaredBytes` (the request's Content-Length) the bytes are counted:
   * a body that ends short of it or runs past it fails with `InputChangedError`
   * as soon as that is known, instead of leaving the server waiting for the
   * rest until a timeout (the source changed after its size was taken).
   */
  trackUpload(source: ReadableStream<Uint8Array>, declaredBytes?: number): ReadableStream<Uint8Array> {
    const reader = source.getReader();
    let read = 0;
    return new ReadableStream<Uint8Array>(
      {
        pull: async (c) => {
          this.arm();
          const { done, value } = await reader.read();
          if (done) {
            if (declaredBytes === undefined || read === declaredBytes) c.close();
            else c.error(new InputChangedError(declaredBytes, read));
            return;
          }
          read += value.byteLength;
          if (declaredBytes !== undefined && read > declaredBytes) {
            c.error(new InputChangedError(declaredBytes, read));
            await reader.cancel().catch(() => undefined);
            return;
          }
          c.enqueue(value);
        },
        cancel: (reason) => reader.cancel(reason),
      },
      { highWaterMark: 0 },
    );
  }

  /**
   * The response with its body still linked: reads are timed (only while
   * waiting on the network, not while the consumer is busy), an abort errors
   * the stream with `UserAbortError`, and the end, an error or `cancel()`
   * releases the link. Without a body (or without a `Response` constructor,
   * as in some embedded hosts) the link is released at once.
   */
  linkResponse(res: Response): Response {
    // A constructed Response needs a status of 200–599 that may carry a body (opaque answers have 0).
    if (!res.body || typeof Response !== 'function' || res.status < 200 || res.status > 599 || NULL_BODY_STATUS.has(res.status)) {
      this.release();
      return res;
    }
    const reader = res.body.getReader();
    const body = new ReadableStream<Uint8Array>(
      {
        pull: async (c) => {
          this.arm();
          try {
            const { done, value } = await reader.read();
            this.disarm();
            if (done) {
              this.release();
              c.close();
            } else c.enqueue(value);
          } catch (err) {
            const e = this.failure(err);
            this.release();
            c.error(e);
          }
        },
        cancel: async (reason) => {
          this.release();
          await reader.cancel(reason);
        },
      },
      { highWaterMark: 0 },
    );
    const out = new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
    // `url` and `redirected` are read-only getters on a constructed Response; keep the originals.
    Object.defineProperty(out, 'url', { value: res.url });
    Object.defineProperty(out, 'redirected', { value: res.redirected });
    return out;
  }
}
