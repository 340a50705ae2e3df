/**
 * core's own address handling (address.ts) against the WHATWG `URL` and
 * `URLSearchParams` it stands in for where UXP has neither: the same parts
 * for the addresses the clients meet, the same query encoding (a space as
 * %20), and a signed query left byte for byte when parameters are appended.
 */
import { describe, expect, it } from 'vitest';
import { encodeQuery, parseQuery, parseUrl, queryValue, withQuery } from '../src/address';

const ADDRESSES = [
  'https://api.perfectlyclear.io/v2',
  'https://api.perfectlyclear.io/v2/',
  'HTTPS://API.PerfectlyClear.io:443/v2/status/abc-123?noRedirect=true',
  'http://localhost:8080',
  'http://127.0.0.1:8081/pfc/img%20one.jpg?preset=School%20and%20Sports#top',
  'http://[::1]:3000/output/a.jpg',
  'https://bucket.s3.amazonaws.com/uploads/x.jpg?X-Amz-Signature=a%2Fb~c&X-Amz-Expires=900',
  'https://user:pass@proxy.example.com:8443/base/',
  'ws://example.com:80/socket',
  'http://example.com:0/',
  'https://example.com?q=1',
  '  https://api.perfectlyclear.io/v2\n',
  'http://127.0.0.1:8081/output/my photo.jpg',
  'https://x.test/a b/über "q" <x> `y` {z}?q=a b&c="d"&e=<f>&g=\'h\'&i=é#frag ment`x`',
  'https://x.test/already%20encoded/%E2%82%AC?x=%2B%20&y=a%2Fb',
  'https://x.te\tst/a\nb\\c\\d?e\\f',
];

describe('parseUrl', () => {
  it.each(ADDRESSES)('gives the parts URL gives for %s', (address) => {
    const ours = parseUrl(address);
    const theirs = new URL(address);
    expect({ href: ours.href, protocol: ours.protocol, host: ours.host, hostname: ours.hostname, port: ours.port, origin: ours.origin, pathname: ours.pathname, search: ours.search, hash: ours.hash })
      .toEqual({ href: theirs.href, protocol: theirs.protocol, host: theirs.host, hostname: theirs.hostname, port: theirs.port, origin: theirs.origin, pathname: theirs.pathname, search: theirs.search, hash: theirs.hash });
  });

  it.each(['api.example.com/v2', '/v2/status', 'https://', 'https://exa mple.com/', 'https://example.com:99999/', 'ftp://example.com/a', ''])('refuses %j with a TypeError, as URL would or a client must', (text) => {
    expect(() => parseUrl(text)).toThrow(TypeError);
  });
});

describe('query parameters', () => {
  it('encode as URLSearchParams does, but a space as %20', () => {
    const pairs: [string, string][] = [['preset', 'School and Sports'], ['bgColor', '#ff0000'], ['x', "a+b!'()*~,/?=&é"]];
    expect(encodeQuery(pairs)).toBe(new URLSearchParams(pairs).toString().replace(/\+/g, '%20'));
    expect(parseQuery(`?${encodeQuery(pairs)}`)).toEqual(pairs);
    expect(queryValue('?a=1&b=x+y&b=2', 'b')).toBe('x y');
  });

  it('are appended leaving a signed query byte for byte; one already there is replaced', () => {
    const signed = parseUrl('https://x.test/status/1?sig=a%2Fb~c');
    expect(withQuery(signed, { noRedirect: 'true', skip: undefined }).href).toBe('https://x.test/status/1?sig=a%2Fb~c&noRedirect=true');
    expect(withQuery(parseUrl('https://x.test/s?noRedirect=false&a=1'), [['noRedirect', 'true']]).href).toBe('https://x.test/s?noRedirect=true&a=1');
    expect(withQuery(parseUrl('https://u:p@x.test/s#f'), { a: 1 }).href).toBe('https://u:p@x.test/s?a=1#f');
    expect(withQuery(signed, {})).toBe(signed);
  });
});
