/**
 * The message an error answer's body gives: JSON fields, an object store's
 * XML error (what S3 answers a pre-signed PUT or GET it refuses), else text.
 */
import { describe, expect, it } from 'vitest';
import { APIError, bodyMessage, WebApiClient } from '@pfc/core';
import { BASE, FakeApi, KEY } from './helpers/fake-api';
import { recordingSleep } from './helpers/fake-fetch';

const S3_EXPIRED = `<?xml version="1.0" encoding="UTF-8"?>
<Error><Code>AccessDenied</Code><Message>Request has expired &amp; cannot be used</Message><X-Amz-Expires>900</X-Amz-Expires><RequestId>7Q3K</RequestId><HostId>a/b=</HostId></Error>`;

describe('bodyMessage', () => {
  it('an object store\'s XML error reads "Code: Message", entities decoded, the rest (request and host ids) left out', () => {
    expect(bodyMessage(S3_EXPIRED)).toBe('AccessDenied: Request has expired & cannot be used');
    expect(bodyMessage('<Error><Code>NoSuchUpload</Code></Error>')).toBe('NoSuchUpload');
    expect(bodyMessage('<Error><Message>slow down &#x2014; please</Message></Error>')).toBe('slow down — please');
  });

  it('JSON fields and other text as before: XML that is not an error document stays text', () => {
    expect(bodyMessage({ error: 'no such job' })).toBe('no such job');
    expect(bodyMessage({ message: 'bad preset' })).toBe('bad preset');
    expect(bodyMessage('  gateway timeout \n')).toBe('gateway timeout');
    expect(bodyMessage('<html><body>502 Bad Gateway</body></html>')).toBe('<html><body>502 Bad Gateway</body></html>');
    expect(bodyMessage('<Error>SignatureDoesNotMatch</Error>')).toBe('<Error>SignatureDoesNotMatch</Error>');
    expect(bodyMessage('')).toBeUndefined();
  });

  it('a refused pre-signed upload says the store\'s reason in the error the user sees, not its XML', async () => {
    const api = new FakeApi();
    api.http.on('PUT', /^https:\/\/storage\.test\/put\//, () => new Response(S3_EXPIRED, { status: 403, headers: { 'content-type': 'application/xml' } }));
    const client = new WebApiClient({ apiKey: KEY, baseURL: BASE, fetch: api.fetch, sleep: recordingSleep().sleep });
    const err = (await client.correct(new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2]), {}).catch((e: unknown) => e)) as APIError;
    expect(err).toBeInstanceOf(APIError);
    expect(err.message).toMatch(/^PUT pre-signed upload on storage\.test.* answered 403: AccessDenied: Request has expired & cannot be used$/);
    expect(err.message).not.toContain('<');
  });
});
