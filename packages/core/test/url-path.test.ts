import { describe, expect, it } from 'vitest';
import { ParameterError } from '../src/errors';
import { path } from '../src/url-path';

describe('path`…`', () => {
  it('encodes each value as one segment', () => {
    expect(path`/presets/${'my preset'}`).toBe('/presets/my%20preset');
    expect(path`/status/${'../upload'}?x`).toBe('/status/..%2Fupload?x');
    expect(path`/a/${'b?c#d%'}/e/${7}`).toBe('/a/b%3Fc%23d%25/e/7');
    expect(new URL(path`/status/${'a/../../upload'}`, 'http://h/api/').pathname).toBe('/status/a%2F..%2F..%2Fupload');
  });

  it.each(['', '.', '..'])('refuses the id %j, naming the route', (id) => {
    expect(() => path`/presets/${id}`).toThrow(ParameterError);
    expect(() => path`/presets/${id}`).toThrow(/\/presets\/\{\}: an id must not be empty/);
  });
});
