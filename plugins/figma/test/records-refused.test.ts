/**
 * A record Figma refuses (an entry over 100 kB, typings `setPluginData`) stops the apply with the layer as it was:
 * its fills and every one of its records, none half-written. Driven through the UI's run loop on the simulator,
 * which enforces the limit; checked on the layer's fills and plugin data.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ORIGINALS_KEY, RECORD_KEYS } from '../src/main/fills';
import { connect, freshSim, makeImage } from './helpers';
import { imageFill } from './sim/figma';
import { MANIFEST_ID } from './sim/manifest';
import { PLUGIN_DATA_LIMIT } from './sim/nodes';
import { correctWith } from './user-steps';

let original: Uint8Array;
let corrected: Uint8Array;
beforeAll(async () => {
  [original, corrected] = await Promise.all([makeImage(64, 48, 'jpeg', { r: 10, g: 20, b: 30 }), makeImage(64, 48, 'png', { r: 40, g: 50, b: 60 })]);
});

/**
 * An originals record of earlier corrections (of images the layer no longer shows) leaving exactly `room` bytes
 * under Figma's limit for the entry (plugin id, key and value: the simulator's count).
 */
function nearlyFullOriginals(room: number): string {
  const budget = PLUGIN_DATA_LIMIT - room - MANIFEST_ID.length - ORIGINALS_KEY.length;
  const entries: Record<string, string> = {};
  for (let i = 0; JSON.stringify(entries).length < budget - 200; i++) entries[`${i}`.padStart(40, 'a')] = 'b'.repeat(40);
  // The last entry's value takes up what is left: `,"<40 characters>":"<value>"` is 46 characters and the value.
  entries['c'.repeat(40)] = 'd'.repeat(budget - JSON.stringify(entries).length - 46);
  expect(JSON.stringify(entries).length).toBe(budget);
  return JSON.stringify(entries);
}

describe('a record Figma refuses', () => {
  it('stops the apply before the fills change, and leaves every record of the layer as it was', async () => {
    const sim = freshSim();
    const t = await connect(sim);
    const hash = sim.addImage(original);
    const layer = sim.rect('Photo', [imageFill(hash)]);
    sim.place(layer);
    sim.select(layer);
    // The paints record is written first and fits; the originals record, one entry longer, no longer does.
    layer.setPluginData(ORIGINALS_KEY, nearlyFullOriginals(60));
    const records = RECORD_KEYS.map((key) => layer.getPluginData(key));
    const fills = layer.fills;

    await expect(correctWith(t, hash, corrected)).rejects.toThrow('Figma refused to store on "Photo" the way back to its original (setPluginData: entry "pfc.originals" exceeds 100 kB), so this image was put in nowhere');

    expect(layer.fills).toEqual(fills);
    expect(RECORD_KEYS.map((key) => layer.getPluginData(key))).toEqual(records);
    expect(layer.getPluginDataKeys().filter((key) => !RECORD_KEYS.includes(key as (typeof RECORD_KEYS)[number]))).toEqual([]);
  });
});
