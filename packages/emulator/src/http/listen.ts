/** Listening and closing helpers shared by the emulator's servers. */
import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

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
 * and an idle timeout (`idleMs`) guard against stalled sockets.
 */
/** A body for the 400 answered to malformed HTTP; `incompleteBody` when the client ended its side before its Content-Length. */
export type ClientErrorBody = (kind: 'incompleteBody' | 'malformed') => { contentType: string; body: string } | undefined;

/** Default of {@link ListenOptions.idleMs}: a minute without a byte either way. */
export const DEFAULT_IDLE_MS = 60_000;

export interface ListenOptions {
  /** Body of the 400 for malformed HTTP (the storage's XML). */
  clientErrorBody?: ClientErrorBody;
  /**
   * A connection with nothing sent or received for this long is closed (ms;
   * 0 = never). Request time as a whole stays unlimited — a multi-GB upload
   * takes long — but a body that stalls is cut off instead of holding its
   * connection, temp file and handler forever. Default {@link DEFAULT_IDLE_MS}.
   */
  idleMs?: number;
  /** Answers a request whose connection went idle before it was answered (then the connection closes). */
  idleAnswer?: (res: ServerResponse) => void;
}

export async function listen(listener: RequestListener, host: string, port: number, options: ListenOptions = {}): Promise<StartedServer> {
  // The request each connection is answering, for the idle answer.
  const pending = new WeakMap<Socket, ServerResponse>();
  const tracked: RequestListener = (req, res) => {
    pending.set(req.socket, res);
    res.once('finish', () => pending.delete(req.socket));
    listener(req, res);
  };
  const server = createServer({ requestTimeout: 0, headersTimeout: 60_000, keepAliveTimeout: 5_000 }, tracked);
  const { clientErrorBody } = options;
  const idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  if (idleMs > 0) {
    server.setTimeout(idleMs, (socket: Socket) => {
      const res = pending.get(socket);
      // The handler still reading the body must see it fail (and drop its temp file), once the answer is out.
      const close = (): void => {
        res?.req.destroy(new Error('the connection was idle too long'));
        socket.destroy();
      };
      if (res && !res.headersSent && options.idleAnswer) {
        options.idleAnswer(res);
        setImmediate(close);
      } else close();
    });
  }
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
