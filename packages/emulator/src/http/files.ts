/** Streaming files from disk to a response. */
import { createReadStream } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { sendJson } from './respond';

/** Streams a file from disk; a read error after the headers drops the connection (the client sees a short body). */
export function streamFile(res: ServerResponse, path: string, size: number, contentType: string, headers: Record<string, string> = {}): void {
  const stream = createReadStream(path);
  res.once('close', () => stream.destroy());
  stream.once('open', () => {
    res.writeHead(200, { ...headers, 'Content-Type': contentType, 'Content-Length': String(size) });
    stream.pipe(res);
  });
  stream.once('error', () => {
    if (!res.headersSent) sendJson(res, 404, { error: 'the file is no longer available' });
    else res.destroy();
  });
}
