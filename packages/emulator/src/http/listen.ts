/** Listening and closing helpers shared by the emulator's servers. */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A started HTTP server: its origin (`http://host:port`) and a close that ends open connections. */
export interface StartedServer {
  server: Server;
  /** `http://host:port`, no trailing slash. Wildcard hosts are printed as 127.0.0.1. */
  origin: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Starts a `node:http` server on `host:port` (port 0 = any free port).
 * Request timeouts are off (multi-GB uploads take long); a header timeout
 * still guards against idle sockets.
 */
/** A body for the 400 answered to malformed HTTP; `incompleteBody` when the client ended its side before its Content-Length. */
export type ClientErrorBody = (kind: 'incompleteBody' | 'malformed') => { contentType: string; body: string } | undefined;

export async function listen(listener: RequestListener, host: string, port: number, clientErrorBody?: ClientErrorBody): Promise<StartedServer> {
  const server = createServer({ requestTimeout: 0, headersTimeout: 60_000, keepAliveTimeout: 5_000 }, listener);
  // Malformed HTTP must never crash the process: answer 400 when possible, then drop.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request';
    // The parser meets the end of the stream inside a body: the client half-closed before sending its Content-Length.
    const extra = status.startsWith('400') ? clientErrorBody?.(err.code === 'HPE_INVALID_EOF_STATE' ? 'incompleteBody' : 'malformed') : undefined;
    const head = extra ? `Content-Type: ${extra.contentType}\r\nContent-Length: ${Buffer.byteLength(extra.body)}` : 'Content-Length: 0';
    if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n${head}\r\n\r\n${extra?.body ?? ''}`);
    else socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const shownHost = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return {
    server,
    origin: `http://${shownHost}:${addr.port}`,
    port: addr.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
