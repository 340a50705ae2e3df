import { describe, expect, it } from 'vitest';
import { WebApiClient, type FetchLike } from '@pfc/core';
import { BASE, FakeApi, KEY } from './helpers/fake-api';

/**
 * A fetch that follows redirects clones the request, and the clone's tee keeps
 * every chunk sent in memory (Node 20's fetch held a whole 2 GB upload; see
 * test/reliability/upload-memory.test.ts for the measured side). File bodies
 * therefore go with redirect 'error'; small JSON requests keep 'follow'.
 */
describe('redirect mode of requests with a body', () => {
  function setup() {
    const api = new FakeApi();
    const seen: { method: string; url: string; redirect: RequestRedirect | undefined }[] = [];
    const f: FetchLike = (input, init) => {
      seen.push({ method: init?.method ?? 'GET', url: String(input), redirect: init?.redirect });
      return api.fetch(input, init);
    };
    return { seen, client: new WebApiClient({ apiKey: KEY, baseURL: BASE, fetch: f }) };
  }
  const bytes = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);

  it.each([
    ['a stream factory', () => new Blob([bytes]).stream()],
    ['a Blob', new Blob([bytes], { type: 'image/jpeg' })],
  ])('sends %s to the pre-signed address with redirect "error"', async (_name, input) => {
    const { seen, client } = setup();
    await client.uploadFile(input, { size: bytes.byteLength, contentType: 'image/jpeg' });
    expect(seen.find((s) => s.method === 'PUT')?.redirect).toBe('error');
    expect(seen.find((s) => s.url.includes('/upload'))?.redirect).toBe('follow');
  });
});
