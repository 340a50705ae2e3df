/**
 * The built entries (npm test builds first): `@pfc/batch` must load without a
 * native module, so hosts that cannot carry one (the VS Code .vsix) bundle it
 * as is; the sharp-based report lives on `@pfc/batch/report`.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');

/** Every module specifier a built file and the local chunks it imports bring in, split into static and dynamic. */
function importsOf(file: string, seen = new Set<string>()): { static: Set<string>; dynamic: Set<string> } {
  const out = { static: new Set<string>(), dynamic: new Set<string>() };
  if (seen.has(file)) return out;
  seen.add(file);
  const src = readFileSync(join(dist, file), 'utf8');
  for (const m of src.matchAll(/(?:^|[;\n])\s*(?:import|export)\s[^;]*?from\s*"([^"]+)"|^\s*import\s*"([^"]+)"/gm)) {
    const spec = (m[1] ?? m[2])!;
    if (spec.startsWith('./')) {
      const inner = importsOf(spec.slice(2), seen);
      inner.static.forEach((s) => out.static.add(s));
      inner.dynamic.forEach((s) => out.dynamic.add(s));
    } else {
      out.static.add(spec);
    }
  }
  for (const m of src.matchAll(/\bimport\("([^"]+)"\)/g)) out.dynamic.add(m[1]!);
  return out;
}

describe('built entries', () => {
  it('@pfc/batch imports neither sharp nor the emulator statically; the emulator\'s process launcher (Node built-ins only) only when the embedded one is started', () => {
    const { static: statics, dynamic } = importsOf('index.js');
    expect(statics).toContain('@pfc/core');
    expect([...statics].filter((s) => /sharp|@pfc\/emulator/.test(s))).toEqual([]);
    expect([...dynamic]).toEqual(['@pfc/emulator/process']);
  });

  it('@pfc/batch/rgb is where the greyscale-to-RGB copy (and sharp) are', async () => {
    expect(importsOf('rgb.js').static).toContain('sharp');
    expect(typeof ((await import('@pfc/batch/rgb')) as Record<string, unknown>).rgbCopy).toBe('function');
  });

  it('@pfc/batch/report is where writeReport (and sharp) are', async () => {
    expect(importsOf('report.js').static).toContain('sharp');
    const report = (await import('@pfc/batch/report')) as Record<string, unknown>;
    expect(typeof report.writeReport).toBe('function');
    expect('writeReport' in ((await import('@pfc/batch')) as Record<string, unknown>)).toBe(false);
  });
});
