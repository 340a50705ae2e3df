import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { commonFolder, DEFAULT_SETTINGS, outputModeOf, readSettings, SettingsError } from '../src/settings';
import { ENGLISH_L10N } from './fake-vscode';

const from = (values: Record<string, unknown>) => readSettings(<T>(k: string) => values[k] as T | undefined, ENGLISH_L10N);

function issues(values: Record<string, unknown>): string[] {
  try {
    from(values);
  } catch (err) {
    if (err instanceof SettingsError) return err.issues.map((i) => i.message);
    throw err;
  }
  return [];
}

describe('readSettings', () => {
  test('no values: the documented defaults', () => {
    expect(from({})).toEqual(DEFAULT_SETTINGS);
  });

  test('valid values are taken, URLs lose trailing slashes, parameters are parsed by the core contract', () => {
    const s = from({ backend: 'emulator', emulatorUrl: 'http://127.0.0.1:9000/v2/', parameters: { outputQuality: '85', long: 2048 }, concurrency: 4, 'output.mode': 'suffix', 'output.suffix': '-fixed' });
    expect(s.backend).toBe('emulator');
    expect(s.emulatorUrl).toBe('http://127.0.0.1:9000/v2');
    expect(s.parameters).toEqual({ outputQuality: 85, long: 2048 });
    expect(s.concurrency).toBe(4);
    expect(s.outputMode).toBe('suffix');
  });

  test('container and BGR addresses: one string (as before), or a list for a fleet, each checked', () => {
    expect(from({ containerUrl: 'http://gpu-1:8081/' }).containerUrl).toBe('http://gpu-1:8081');
    const s = from({ containerUrl: ['http://gpu-1:8081', 'http://gpu-2:8081/'], bgrUrl: ['http://gpu-1:8000', 'http://gpu-2:8000'] });
    expect(s.containerUrl).toBe('http://gpu-1:8081,http://gpu-2:8081');
    expect(s.bgrUrl).toBe('http://gpu-1:8000,http://gpu-2:8000');
    expect(issues({ containerUrl: ['http://gpu-1:8081', 'ftp://x'] })[0]).toMatch(/pfc\.containerUrl must be an http\(s\) address/);
    expect(issues({ bgrUrl: [] })[0]).toMatch(/pfc\.bgrUrl must be an http\(s\) address or a list of them/);
  });

  test('per-instance jobs: one number for every instance, or a list (one per address), each 1–64', () => {
    expect(from({}).instanceJobs).toEqual([]);
    expect(from({ instanceJobs: [] }).instanceJobs).toEqual([]);
    expect(from({ instanceJobs: 3 }).instanceJobs).toEqual([3]);
    expect(from({ instanceJobs: [4, 2, 2] }).instanceJobs).toEqual([4, 2, 2]);
    expect(issues({ instanceJobs: [4, 0, 2] })).toEqual(['pfc.instanceJobs must be an integer from 1 to 64 (got 0)']);
    expect(issues({ instanceJobs: 65 })).toEqual(['pfc.instanceJobs must be an integer from 1 to 64 (got 65)']);
    expect(issues({ instanceJobs: ['2'] })[0]).toMatch(/pfc\.instanceJobs must be an integer from 1 to 64/);
  });

  test('each bad value is named with what is allowed', () => {
    expect(issues({ concurrency: -1 })).toEqual(['pfc.concurrency must be an integer from 0 to 16 (got -1)']);
    expect(issues({ concurrency: 2.5 })[0]).toMatch(/pfc\.concurrency must be an integer from 0 to 16/);
    expect(issues({ backend: 'cloud' })[0]).toBe('pfc.backend must be one of auto, hosted, container, container+bgr, emulator (got "cloud")');
    expect(issues({ webApiUrl: 'ftp://x' })[0]).toMatch(/pfc\.webApiUrl must be an http\(s\) address/);
    expect(issues({ 'output.folderName': 'a/b' })[0]).toMatch(/pfc\.output\.folderName must be a folder name without slashes/);
    expect(issues({ 'output.mode': 'elsewhere' })[0]).toMatch(/pfc\.output\.mode must be one of folder, suffix, in-place/);
    expect(issues({ confirmAboveFiles: -1 })[0]).toMatch(/pfc\.confirmAboveFiles must be an integer from 0/);
  });

  test('Web API parameters are checked by the same rules as the service', () => {
    expect(issues({ parameters: { outputQuality: 120 } })).toEqual([expect.stringMatching(/^pfc\.parameters: outputQuality must be an integer from 40 to 100/)]);
    expect(issues({ parameters: { bgColor: '#fff' } }).join()).toMatch(/bgColor/);
    expect(issues({ parameters: { colour: 'red' } }).join()).toMatch(/unknown parameter "colour"/);
    expect(issues({ parameters: [1, 2] })).toEqual(['pfc.parameters must be an object of Web API parameters']);
  });

  test('several bad settings are reported together', () => {
    expect(issues({ concurrency: 99, backend: 'x' })).toHaveLength(2);
  });
});

describe('output modes', () => {
  const s = { outputFolderName: 'corrected', outputSuffix: '_pfc' };
  test('folder mode with the default name: each input folder gets its own corrected/', () => {
    expect(outputModeOf('folder', s, ['/a', '/b'])).toEqual({ kind: 'mirror' });
  });
  test('folder mode with another name: under the inputs\' common folder', () => {
    expect(outputModeOf('folder', { ...s, outputFolderName: 'fixed' }, ['/w/p/x', '/w/p/y'])).toEqual({ kind: 'mirror', dir: join('/w/p', 'fixed') });
  });
  test('suffix and in-place', () => {
    expect(outputModeOf('suffix', s, ['/a'])).toEqual({ kind: 'suffix', suffix: '_pfc' });
    expect(outputModeOf('in-place', s, ['/a'])).toEqual({ kind: 'in-place' });
  });
  test('commonFolder', () => {
    expect(commonFolder(['/w/p/x', '/w/p/y/z'])).toBe('/w/p');
    expect(commonFolder(['/w/p'])).toBe('/w/p');
    expect(commonFolder(['/a', '/b'])).toBe('/');
  });
});
