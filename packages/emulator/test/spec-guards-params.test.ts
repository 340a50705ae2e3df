/**
 * Spec guards: `/pfc` parameter values of web-api-v2.md that no other
 * emulator test sent (each test failed with the shared contract table in
 * @pfc/core loosened the way its name says). The emulator validates with that
 * table, so a looser table would be looser on both sides of every contract
 * test; these send raw queries, as a script would, and expect the 400.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorHandle } from '../src/index';
import { closeAll, emulator, H, json } from './helpers';

let emu: EmulatorHandle;
beforeAll(async () => {
  emu = await emulator({ engine: {} });
});
afterAll(closeAll);

/** `/pfc` with a raw query (the fileKey need not exist: parameters are checked first). */
async function pfc(query: string): Promise<{ status: number; error: string }> {
  const res = await fetch(`${emu.web}/pfc?fileKey=${randomUUID()}&${query}`, { headers: H });
  return { status: res.status, error: (await json<{ error?: string }>(res)).error ?? '' };
}

describe('bgColor: "6-digit hex with #, or a named colour" (the # URL-encoded as %23)', () => {
  it.each([
    ['removeBackground=true&bgColor=%23fff', 'three hex digits'],
    ['removeBackground=true&bgColor=ffffff', 'six hex digits without #'],
    ['removeBackground=true&bgColor=%23ffffff80', 'eight hex digits (alpha)'],
  ])('%s (%s) → 400 naming bgColor', async (query) => {
    const r = await pfc(query);
    expect(r.status).toBe(400);
    expect(r.error).toMatch(/bgColor must be a 6-digit hex colour with #/);
  });

  it('%23 and six digits, or a named colour, pass the parameter check (the unknown fileKey is then the 400)', async () => {
    for (const colour of ['%23A1b2C3', 'white']) {
      const r = await pfc(`removeBackground=true&bgColor=${colour}`);
      expect(r.status).toBe(400);
      expect(r.error).not.toMatch(/bgColor/);
      expect(r.error).toMatch(/fileKey .* is unknown to this API key/);
    }
  });
});

describe('bgShadow: soft, hard or floating; no shadow is an omitted parameter, not a value', () => {
  it('bgShadow=none → 400 naming the allowed values', async () => {
    const r = await pfc('removeBackground=true&bgColor=white&bgShadow=none');
    expect(r.status).toBe(400);
    expect(r.error).toMatch(/bgShadow must be one of soft, hard, floating/);
  });
});

describe('aiArt: "Images only"', () => {
  it('aiArt with fileType=video → 400 naming aiArt, before any file is looked at', async () => {
    const r = await pfc('fileType=video&aiArt=cartoon');
    expect(r.status).toBe(400);
    expect(r.error).toMatch(/aiArt applies to images only/);
  });
});
