/**
 * Web streams read and driven in the sizes a binary format needs, with
 * backpressure kept end to end: bytes taken in exact amounts however the
 * source cuts them (`ByteReader`), a transform stream fed only as fast as its
 * output is read (`Pump`), small pieces gathered into larger ones
 * (`Gathered`), and a small input run whole through a transform with a cap on
 * its output (`transformed`). Web platform only (no Node built-ins): core
 * runs in Node, a browser iframe and UXP.
 */

/** Bytes from a stream in the sizes asked for, however the stream happens to be cut. */
export class ByteReader {
  private chunks: Uint8Array[] = [];
  private buffered = 0;

  constructor(
    private readonly reader: ReadableStreamDefaultReader<Uint8Array>,
    /** The error to throw when the stream fails. */
    private readonly readFailed: (error: unknown) => Error,
  ) {}

  /** Exactly `n` bytes, or undefined when the stream ends first (nothing is allocated until they are all there). */
  async exactly(n: number): Promise<Uint8Array | undefined> {
    while (this.buffered < n) if (!(await this.fill())) return undefined;
    return this.take(n);
  }

  /** Between one and `max` bytes, as they arrive; undefined at the end of the stream. */
  async upTo(max: number): Promise<Uint8Array | undefined> {
    if (this.buffered === 0 && !(await this.fill())) return undefined;
    return this.take(Math.min(max, this.chunks[0]!.length));
  }

  /** Stop reading: the stream's source may let go of the rest. */
  async cancel(reason?: unknown): Promise<void> {
    this.chunks = [];
    this.buffered = 0;
    await this.reader.cancel(reason).catch(ignore);
  }

  private async fill(): Promise<boolean> {
    for (;;) {
      const { done, value } = await this.reader.read().catch((error: unknown) => {
        throw this.readFailed(error);
      });
      if (done) return false;
      if (value.length === 0) continue;
      this.chunks.push(value);
      this.buffered += value.length;
      return true;
    }
  }

  private take(n: number): Uint8Array {
    const first = this.chunks[0];
    if (n === 0 || !first) return new Uint8Array(0);
    this.buffered -= n;
    if (first.length >= n) return this.takeFromFirst(n);
    const out = new Uint8Array(n);
    for (let at = 0; at < n; ) {
      const part = this.takeFromFirst(Math.min(n - at, this.chunks[0]!.length));
      out.set(part, at);
      at += part.length;
    }
    return out;
  }

  private takeFromFirst(n: number): Uint8Array {
    const first = this.chunks[0]!;
    if (n === first.length) this.chunks.shift();
    else this.chunks[0] = first.subarray(n);
    return first.subarray(0, n);
  }
}

/** The compressor takes bytes in an ArrayBuffer (not a shared one): a view of one as it is, else a copy. */
export function ownBuffer(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes.buffer instanceof ArrayBuffer ? (bytes as Uint8Array<ArrayBuffer>) : bytes.slice();
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function ignore(): void {}

/**
 * A transform stream (inflate, deflate) driven from its output end: input,
 * from `next`, is written only when no output waits to be read, and a write
 * only once the transform took the one before (the next piece is made
 * meanwhile, so both sides work at once). Piping would do, but Node's
 * (De)CompressionStream applies no backpressure on its output side and would
 * queue the whole image.
 */
export class Pump {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly writer: WritableStreamDefaultWriter<Uint8Array<ArrayBuffer>>;
  private reading: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
  private writing: Promise<void> | undefined;
  private upcoming: Promise<Uint8Array<ArrayBuffer> | undefined> | undefined;
  private inputEnded = false;

  constructor(
    transform: ReadableWritablePair<Uint8Array, Uint8Array<ArrayBuffer>>,
    private readonly next: () => Promise<Uint8Array<ArrayBuffer> | undefined>,
    /** The error to throw when the transform fails. */
    private readonly failed: (error: unknown) => Error,
  ) {
    this.reader = transform.readable.getReader();
    this.writer = transform.writable.getWriter();
  }

  /** The next output bytes; undefined once the input has ended and the transform has given everything. */
  async read(): Promise<Uint8Array | undefined> {
    try {
      const reading = (this.reading ??= handled(this.reader.read()));
      while (!this.inputEnded && !(await isSettled(reading))) await this.feed(reading);
      this.reading = undefined;
      const { done, value } = await reading;
      return done ? undefined : value;
    } catch (error) {
      throw this.failed(error);
    }
  }

  async cancel(reason: unknown): Promise<void> {
    await Promise.all([this.reader.cancel(reason).catch(ignore), this.writer.abort(reason).catch(ignore)]);
  }

  /** Nothing waits to be read: the next input, once the transform has taken the last (or output arrives meanwhile). */
  private async feed(reading: Promise<unknown>): Promise<void> {
    const upcoming = (this.upcoming ??= handled(this.next()));
    if (this.writing && !(await isSettled(this.writing))) {
      await Promise.race([reading, this.writing]);
      return;
    }
    await this.writing; // rethrows a failed write
    const piece = await upcoming;
    this.upcoming = undefined;
    this.inputEnded = !piece;
    this.writing = handled(piece ? this.writer.write(piece) : this.writer.close());
  }
}

/**
 * All of `bytes` through a transform stream (inflate, deflate), the output
 * gathered into one array; undefined, the transform cancelled, once the
 * output would pass `maxBytes`. The input goes in pieces of `pieceBytes`, each
 * only once the output of the one before has been read, so a small input that
 * inflates to gigabytes is stopped with at most `maxBytes` plus what one piece
 * inflates to (deflate expands at most ~1000×) held. Throws what the
 * transform fails with (corrupt or truncated data).
 */
export async function transformed(
  bytes: Uint8Array,
  transform: ReadableWritablePair<Uint8Array, Uint8Array<ArrayBuffer>>,
  { maxBytes = Infinity, pieceBytes = 4096 }: { maxBytes?: number; pieceBytes?: number } = {},
): Promise<Uint8Array<ArrayBuffer> | undefined> {
  let at = 0;
  const next = async () => (at < bytes.length ? ownBuffer(bytes.subarray(at, (at += pieceBytes))) : undefined);
  const pump = new Pump(transform, next, (error) => (error instanceof Error ? error : new Error(String(error))));
  const output = new Gathered();
  for (let part = await pump.read(); part; part = await pump.read()) {
    output.add(part);
    if (output.length > maxBytes) {
      await pump.cancel(new RangeError(`more than ${maxBytes} bytes`));
      return undefined;
    }
  }
  return output.take();
}

/** `promise`, marked as handled: a rejection nobody awaits (the transform failed, the reader was cancelled) is not reported as unhandled. */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(ignore);
  return promise;
}

const PENDING = Symbol('pending');

/** Whether `promise` has settled by now (a settled promise wins a race against one resolved after it). */
async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  return Promise.race([promise, Promise.resolve(PENDING)]).then(
    (value) => value !== PENDING,
    () => true,
  );
}


/** Byte arrays gathered until taken as one. */
export class Gathered {
  private parts: Uint8Array[] = [];
  length = 0;

  add(part: Uint8Array): void {
    this.parts.push(part);
    this.length += part.length;
  }

  take(): Uint8Array<ArrayBuffer> {
    const all = new Uint8Array(this.length);
    let at = 0;
    for (const part of this.parts) {
      all.set(part, at);
      at += part.length;
    }
    this.parts = [];
    this.length = 0;
    return all;
  }
}
