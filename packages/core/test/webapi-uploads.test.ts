import { describe, expect, it } from 'vitest';
import { ProtocolError, WebApiClient } from '@pfc/core';
import { BASE, FakeApi, KEY } from './helpers/fake-api';
import { FakeFetch, json, recordingSleep } from './helpers/fake-fetch';

const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);

function setup(api = new FakeApi()) {
  const client = new WebApiClient({ apiKey: KEY, baseURL: BASE, fetch: api.fetch, sleep: recordingSleep().sleep });
  return { api, client };
}

describe('uploads', () => {
  it.each(['upload_url', 'uploadUrl'] as const)('reads the address spelled %s', async (field) => {
    const api = new FakeApi();
    api.uploadField = field;
    const t = await setup(api).client.uploads.ticket('video');
    expect(t.uploadUrl).toMatch(/^https:\/\/storage\.test\/put\//);
    expect(api.http.calls[0]!.url.searchParams.get('fileType')).toBe('video');
  });

  it('rejects a ticket without fileKey or address', async () => {
    const http = new FakeFetch().on('GET', /\/upload/, () => json({ fileKey: 'k' }));
    const client = new WebApiClient({ apiKey: KEY, baseURL: BASE, fetch: http.fetch });
    await expect(client.uploads.ticket()).rejects.toBeInstanceOf(ProtocolError);
  });

  it('PUTs the bytes to the pre-signed address with no API key and no Content-Type, keeping its signed query', async () => {
    const { api, client } = setup();
    const key = await client.uploadFile(JPEG);
    expect([...api.files.get(key)!]).toEqual([...JPEG]);
    const put = api.http.callsTo('PUT', /storage\.test/)[0]!;
    expect(put.headers.has('x-api-key')).toBe(false);
    expect(put.url.search).toBe('?X-Sig=abc%2Fdef');
    // As the vendor's own clients: storage signed for no Content-Type refuses one (403).
    expect(put.headers.get('content-type')).toBeNull();
    expect(api.http.callsTo('GET', /\/upload/)[0]!.headers.get('x-api-key')).toBe(KEY);
  });

  it('sends a typed Blob without the Content-Type fetch would take from its type, and a caller hint is not sent either', async () => {
    const { api, client } = setup();
    const key = await client.uploadFile(new Blob([JPEG], { type: 'image/png' }), { contentType: 'image/png' });
    expect([...api.files.get(key)!]).toEqual([...JPEG]);
    expect(api.http.callsTo('PUT', /storage/)[0]!.headers.get('content-type')).toBeNull();
  });

  it('streams a body with a Content-Length when the size is given', async () => {
    const { api, client } = setup();
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(JPEG.subarray(0, 3));
        c.enqueue(JPEG.subarray(3));
        c.close();
      },
    });
    const key = await client.uploadFile(stream, { size: JPEG.byteLength, contentType: 'image/jpeg' });
    expect([...api.files.get(key)!]).toEqual([...JPEG]);
    const put = api.http.callsTo('PUT', /storage/)[0]!;
    expect(put.headers.get('content-length')).toBe(String(JPEG.byteLength));
    expect(put.headers.get('content-type')).toBeNull();
  });

  it('re-opens a factory input to retry a failed upload', async () => {
    const api = new FakeApi();
    api.http.fail('PUT', /storage/, 'reset', { status: 503 });
    const { client } = setup(api);
    let opened = 0;
    const key = await client.uploadFile(() => {
      opened++;
      return new ReadableStream<Uint8Array>({ start: (c) => (c.enqueue(JPEG), c.close()) });
    }, { size: JPEG.byteLength });
    expect(opened).toBe(3);
    expect([...api.files.get(key)!]).toEqual([...JPEG]);
  });

  it('pulls a streamed upload only as fast as it is sent (nothing buffers the file)', async () => {
    const chunk = new Uint8Array(64 * 1024);
    const total = 400; // 25 MB in 64 KB chunks
    let produced = 0;
    let consumed = 0;
    let maxAhead = 0;
    const http = new FakeFetch()
      .on('GET', /\/upload/, () => json({ fileKey: '1b4e28ba-2fa1-11d2-883f-0016d3cca427', upload_url: 'https://storage.test/put/x' }))
      .on('PUT', /storage/, async (req) => {
        const reader = req.body!.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          consumed += value.byteLength;
          maxAhead = Math.max(maxAhead, produced - consumed);
          await new Promise((r) => setImmediate(r)); // a slow network
        }
        return new Response(null, { status: 200 });
      });
    const client = new WebApiClient({ apiKey: KEY, baseURL: BASE, fetch: http.fetch });
    const source = () =>
      new ReadableStream<Uint8Array>(
        {
          pull(c) {
            if (produced >= total * chunk.byteLength) return c.close();
            produced += chunk.byteLength;
            c.enqueue(chunk);
          },
        },
        { highWaterMark: 0 },
      );
    await client.uploadFile(source, { size: total * chunk.byteLength });
    expect(consumed).toBe(total * chunk.byteLength);
    // At most a few chunks in flight between the source and the network.
    expect(maxAhead).toBeLessThanOrEqual(4 * chunk.byteLength);
  });
});
