/** `GET /upload` and the PUT to the pre-signed address it returns. */
import type { FileInput } from '../backend';
import { ProtocolError } from '../errors';
import type { UploadTicket } from '../contract/webapi-types';
import { inputFacts, toBodySource, uploadHeaders, type InputHints } from './input';
import type { WebApiContext } from './options';
import { callRequestOptions, type CallOptions } from '../transport';

/** An upload ticket with the address under one name (the service spells it `upload_url`). */
export interface Upload {
  fileKey: string;
  uploadUrl: string;
}

/** An upload; the call options apply to the ticket and to the PUT. */
export interface UploadOptions extends InputHints, CallOptions {
  /** `image` (default) or `video`. Background and AI Art reference images are `image`. */
  fileType?: 'image' | 'video';
}

export class Uploads {
  readonly #ctx: WebApiContext;

  constructor(ctx: WebApiContext) {
    this.#ctx = ctx;
  }

  /** Ask for an upload ticket: `GET /upload?fileType=`. Reads `uploadUrl ?? upload_url`. */
  async ticket(fileType: 'image' | 'video' = 'image', options: CallOptions = {}): Promise<Upload> {
    const body = await this.#ctx.transport.json<Partial<UploadTicket> | string | undefined>('/upload', {
      query: { fileType },
      ...callRequestOptions(options),
    });
    const t = typeof body === 'object' && body !== null ? body : {};
    const uploadUrl = t.uploadUrl ?? t.upload_url;
    if (typeof t.fileKey !== 'string' || typeof uploadUrl !== 'string') {
      throw new ProtocolError(`GET /upload answered without fileKey and uploadUrl: ${preview(body)}`, body);
    }
    return { fileKey: t.fileKey, uploadUrl };
  }

  /**
   * Send a file to a pre-signed address with a plain PUT and no API key. A
   * Blob, bytes or a factory are retried on transient failures; a bare stream
   * can be sent only once. Pass `size` with a stream so it goes with a
   * Content-Length instead of chunked.
   */
  async put(uploadUrl: string, input: FileInput, options: InputHints & CallOptions = {}): Promise<void> {
    const facts = inputFacts(input, options);
    const res = await this.#ctx.transport.request(uploadUrl, {
      method: 'PUT',
      auth: false,
      body: toBodySource(input),
      headers: uploadHeaders(input, facts),
      ...callRequestOptions(options),
      // The address carries its signature; name it by host only.
      label: `PUT pre-signed upload on ${this.#ctx.transport.url(uploadUrl).host}`,
    });
    await drain(res);
  }

  /** Upload a file (ticket + PUT) and return its `fileKey`, e.g. for `bgFileKey` or `aiArtReferenceFileKey`. */
  async upload(input: FileInput, options: UploadOptions = {}): Promise<string> {
    const ticket = await this.ticket(options.fileType ?? 'image', options);
    await this.put(ticket.uploadUrl, input, options);
    return ticket.fileKey;
  }
}

/** Read a small answer to its end, which lets the connection be reused (cancelling may close it). */
export async function drain(res: Response): Promise<void> {
  await res.arrayBuffer();
}

/** The start of a body for an error message. */
export function preview(body: unknown): string {
  const text = typeof body === 'string' ? body : JSON.stringify(body) ?? String(body);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
