/**
 * Sending one fuzz case exactly as written: the path is not normalised (a
 * `..` segment or a bad escape reaches the server as is), a body may be cut
 * short of its declared length, and a request that no HTTP client would send
 * goes over a raw socket.
 *
 * A case: { api, method, path, headers?, body?: Buffer, declaredLength?,
 * truncate?: boolean, raw?: Buffer, note }. The outcome: { status } (the
 * final status; 1xx interim answers are counted in `interim`), or
 * { status: 'no-answer', error } when the connection ended without one.
 */
import http from 'node:http';
import net from 'node:net';

const TIMEOUT_MS = 60_000;
/** Keep at most this much of an answer: enough to find a leaked canary. */
const BODY_CAP = 1 << 20;

/** Status code from the first line of a raw HTTP answer, skipping 1xx interim answers. */
function finalStatus(text) {
  const codes = [...text.matchAll(/^HTTP\/1\.[01] (\d{3})/gm)].map((m) => Number(m[1]));
  return codes.find((c) => c >= 200) ?? (codes.length ? codes.at(-1) : undefined);
}

/**
 * Write `bytes` on a fresh connection and read the answer. The socket stays
 * open while the server may still answer (a real client waits; a half-close
 * would let a server drop an answer it is still preparing); after 2 s of
 * silence it is half-closed, which ends an incomplete request.
 */
function sendRaw(base, bytes) {
  return new Promise((resolve) => {
    const sock = net.connect({ host: base.hostname, port: Number(base.port) });
    const chunks = [];
    let size = 0;
    let settled = false;
    let idle;
    const done = (error) => {
      if (settled) return;
      settled = true;
      clearTimeout(idle);
      sock.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      const status = finalStatus(text);
      resolve(status ? { status, body: text } : { status: 'no-answer', error: error ?? 'closed without an answer', body: text });
    };
    const quiet = (ms, then) => {
      clearTimeout(idle);
      idle = setTimeout(then, ms);
    };
    sock.on('data', (d) => {
      if (size < BODY_CAP) chunks.push(d);
      size += d.length;
      // An answer has started: take what follows for a moment, then stop.
      if (finalStatus(Buffer.concat(chunks).toString('latin1'))) quiet(300, () => done());
    });
    sock.on('error', (e) => done(e.code ?? e.message));
    sock.on('close', () => done());
    sock.on('connect', () => {
      sock.write(bytes);
      quiet(2000, () => {
        sock.end();
        quiet(3000, () => done('timeout'));
      });
    });
    setTimeout(() => done('timeout'), TIMEOUT_MS).unref();
  });
}

/** Send `c` to the server at `baseUrl` (an origin: http://host:port). */
export function send(baseUrl, c) {
  const base = new URL(baseUrl);
  if (c.raw) return sendRaw(base, c.raw);
  const headers = { ...c.headers };
  const body = c.body ?? Buffer.alloc(0);
  if (c.declaredLength !== undefined) headers['content-length'] = String(c.declaredLength);
  else if (c.body) headers['content-length'] = String(body.length);
  let req;
  try {
    req = http.request({ host: base.hostname, port: Number(base.port), method: c.method, path: c.path, headers, agent: false, timeout: TIMEOUT_MS });
  } catch (err) {
    // A path or header no HTTP client would send: put it on the wire by hand.
    if (err.code !== 'ERR_UNESCAPED_CHARACTERS' && err.code !== 'ERR_INVALID_CHAR' && err.code !== 'ERR_INVALID_HTTP_TOKEN') throw err;
    const head = [`${c.method} ${c.path} HTTP/1.1`, `Host: ${base.host}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), 'Connection: close', '', ''].join('\r\n');
    return sendRaw(base, Buffer.concat([Buffer.from(head, 'latin1'), body]));
  }
  return new Promise((resolve) => {
    let settled = false;
    let interim = 0;
    const finish = (outcome) => {
      if (settled) return;
      settled = true;
      resolve({ interim, ...outcome });
    };
    req.on('information', () => interim++);
    req.on('response', (res) => {
      const chunks = [];
      let size = 0;
      res.on('data', (d) => {
        if (size < BODY_CAP) chunks.push(d);
        size += d.length;
      });
      const end = () => finish({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('latin1') });
      res.on('end', end);
      res.on('error', end);
      res.on('aborted', end);
    });
    req.on('timeout', () => {
      req.destroy();
      finish({ status: 'no-answer', error: 'timeout' });
    });
    req.on('error', (e) => finish({ status: 'no-answer', error: e.code ?? e.message }));
    if (c.truncate) {
      // Send part of the declared body, then hang up: the server must cope and keep nothing.
      req.write(body.subarray(0, Math.floor(body.length / 2)));
      setTimeout(() => {
        req.destroy();
        finish({ status: 'no-answer', error: 'truncated by the client' });
      }, 50);
    } else req.end(body);
  });
}
