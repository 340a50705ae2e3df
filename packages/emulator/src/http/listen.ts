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
export async function listen(listener: RequestListener, host: string, port: number): Promise<StartedServer> {
  const server = createServer({ requestTimeout: 0, headersTimeout: 60_000, keepAliveTimeout: 5_000 }, listener);
  // Malformed HTTP must never crash the process: answer 400 when possible, then drop.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request';
    if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
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
