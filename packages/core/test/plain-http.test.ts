/**
 * The API key is never sent unencrypted across the internet: a plain http:// base address is refused before any
 * request unless it names this computer or the local network (where the emulator or a self-hosted gateway runs).
 */
import { describe, expect, it } from 'vitest';
import { WebApiClient } from '../src/index';

const KEY = 'sk-live-plain-http-test';

/** A client on `baseURL` whose fetch records every request; the error its constructor throws, if any. */
function clientOn(baseURL: string): { requests: string[]; error: Error | undefined } {
  const requests: string[] = [];
  const fetch = async (input: string | URL | Request) => {
    requests.push(String(input));
    return new Response('{}', { status: 200 });
  };
  try {
    new WebApiClient({ apiKey: KEY, baseURL, fetch });
    return { requests, error: undefined };
  } catch (err) {
    return { requests, error: err as Error };
  }
}

describe('a plain http:// base address', () => {
  it.each([
    'http://api.perfectlyclear.io/v2',
    'HTTP://API.Example.COM:8080/v2/',
    'http://203.0.113.7/v2',
    'http://172.32.0.1/v2',
    'http://[2001:db8::1]/v2',
    'http://printer.localdomain.example/v2',
  ])('on the internet (%s) is refused before anything is sent, naming the address, never the key', (base) => {
    const { requests, error } = clientOn(base);
    expect(error).toBeInstanceOf(TypeError);
    expect(error!.message).toMatch(/^the base address http:\/\/\S+ is plain http:\/\/ to a computer on the internet, so the API key would cross the network unencrypted: use https:\/\//);
    expect(error!.message).not.toContain(KEY);
    expect(requests).toEqual([]);
  });

  it.each([
    'http://127.0.0.1:8080/v2',
    'http://localhost:3000/v2',
    'http://pfc.localhost/v2',
    'http://[::1]:9000/v2',
    'http://10.1.2.3/v2',
    'http://172.16.0.9/v2',
    'http://192.168.1.20:8080/v2',
    'http://169.254.10.1/v2',
    'http://[fd12:3456::1]/v2',
    'http://[fe80::1]/v2',
    'http://gateway/v2',
    'http://nas.local/v2',
    'http://pfc.lan/v2',
    'http://host.docker.internal:8080/v2',
    'http://box.home.arpa/v2',
  ])('on this computer or the local network (%s) is taken', (base) => {
    expect(clientOn(base).error).toBeUndefined();
  });

  it('https:// is taken anywhere', () => {
    expect(clientOn('https://api.example.com/v2').error).toBeUndefined();
  });
});
