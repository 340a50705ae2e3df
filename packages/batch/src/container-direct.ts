/**
 * Direct file access to the colour-correction container: when its `/input`
 * and `/output` are mounted on this machine (and the container runs with
 * `PFC_PRESERVE_INPUT_FILENAME=true`), a file is copied into the input folder,
 * corrected with `GET /pfc/<filename>` and read from the output folder — no
 * image data travels over HTTP. Node-only (file system), hence here and not
 * in `@pfc/core`. The staged input and the output are removed afterwards, also
 * after a failure or an abort.
 */
import { randomUUID } from 'node:crypto';
import { readFile, rm, stat } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import {
  ContainerClient,
  containerBackendWith,
  containerContentType,
  imageKeyProblem,
  ProtocolError,
  sniffType,
  UserAbortError,
  type ContainerClientOptions,
  type CorrectionBackend,
  type CorrectOptions,
  type FileInput,
} from '@pfc/core';
import { writeStreamAtomic } from './files';

export interface DirectAccessOptions {
  /** The container (for the one `GET /pfc/<filename>` call): a client or its options. */
  container: ContainerClient | ContainerClientOptions;
  /** Local path where the container's `/input` is mounted. */
  inputDir: string;
  /** Local path where the container's `/output` is mounted. */
  outputDir: string;
}

/**
 * A `CorrectionBackend` (kind `container`) that moves image data through the
 * mounted folders instead of HTTP. Same parameters, errors and result shape as
 * `createContainerBackend`; `info.directAccess` is true.
 */
export function createDirectContainerBackend(options: DirectAccessOptions): CorrectionBackend {
  const client = options.container instanceof ContainerClient ? options.container : new ContainerClient(options.container);
  const inputDir = resolve(options.inputDir);
  const outputDir = resolve(options.outputDir);
  return containerBackendWith(async (input: FileInput, check, opts: CorrectOptions, signal) => {
    const type = await containerContentType(input, opts);
    const name = stagedName(opts.fileName, type);
    const staged = join(inputDir, name);
    let produced: string | undefined;
    try {
      opts.onProgress?.({ phase: 'uploading' });
      await writeStreamAtomic(staged, await toStream(input), { signal });
      if (signal.aborted) throw new UserAbortError();
      opts.onProgress?.({ phase: 'processing' });
      const correction = await client.correct(name, { ...check.container, preserveInputFileName: true }, { signal });
      produced = join(outputDir, outputNameOf(correction.correctedUrl, name));
      opts.onProgress?.({ phase: 'downloading' });
      const info = await stat(produced).catch(() => undefined);
      if (!info?.isFile()) {
        throw new ProtocolError(`the container answered ${correction.correctedUrl} but ${produced} is not there: is ${outputDir} its /output, and PFC_PRESERVE_INPUT_FILENAME=true?`);
      }
      // Read whole before the files are removed below (a corrected image, not an upload).
      const bytes = await readFile(produced);
      return { correction, body: new Response(bytes).body!, contentType: sniffType(bytes), info: { imageKey: name, directAccess: true } };
    } finally {
      // Ours to remove in every case: the container must not fill up with our files.
      await rm(staged, { force: true }).catch(() => undefined);
      await rm(produced ?? join(outputDir, name), { force: true }).catch(() => undefined);
    }
  });
}

/** A unique name that passes the container's sanity check and keeps the extension (the container may use it). */
function stagedName(fileName: string | undefined, type: string): string {
  const ext = (fileName ? extname(fileName).toLowerCase() : '') || (type === 'image/png' ? '.png' : '.jpg');
  const base = (fileName ?? 'image').replace(/^.*[\\/]/, '').slice(0, -ext.length || undefined).replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 100) || 'image';
  return `${randomUUID()}-${base}${ext.replace(/[^a-z0-9.]/g, '')}`;
}

/** The output file's name: the last segment of `corrected_url`, if it is a safe name; else the staged name. */
function outputNameOf(correctedUrl: string, staged: string): string {
  try {
    const last = decodeURIComponent(new URL(correctedUrl).pathname.split('/').pop() ?? '');
    return last && !imageKeyProblem(last) ? last : staged;
  } catch {
    return staged;
  }
}

async function toStream(input: FileInput): Promise<ReadableStream<Uint8Array>> {
  const r = typeof input === 'function' ? await input() : input;
  if (r instanceof ReadableStream) return r;
  return new Response(r as Blob | Uint8Array<ArrayBuffer>).body!;
}
