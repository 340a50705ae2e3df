/**
 * The combined engine a service plugs in: detection gives faces and a scene
 * that uses them, the look picks the portrait variant by faces on its own.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createImagingEngine } from '../src/imaging';
import { SCENE } from '../src/scene/categories';
import { closeEngineWorkers } from '../src/vision';
import { rgb, sample } from './colour-helpers';

afterAll(() => closeEngineWorkers());

describe('createImagingEngine', () => {
  const engine = createImagingEngine();

  it('detects one face and a portrait scene on a portrait, no face and a night scene on the launch', async () => {
    const astronaut = await rgb(sample('portraits/astronaut.jpg'));
    const d = await engine.detect({ ...astronaut, channels: 3 });
    expect(d.faces).toHaveLength(1);
    expect(d.scene).toBe(SCENE.portrait);
    const rocket = await rgb(sample('outdoors/rocket.jpg'));
    const r = await engine.detect({ ...rocket, channels: 3 });
    expect(r.faces).toHaveLength(0);
    expect(r.scene).toBe(SCENE.night);
  });

  it('carries the AI Art and video hooks next to its own', () => {
    expect(typeof engine.art).toBe('function');
    expect(typeof engine.video).toBe('function');
  });

  it('looks for faces itself under AI preset selection when the job ran no detection', async () => {
    const hopper = await rgb(sample('portraits/grace_hopper.jpg'));
    const out = await engine.look({ ...hopper, channels: 3 }, { params: {} });
    expect(out.scene).toBe(SCENE.portrait);
    const none = await engine.look({ ...hopper, channels: 3 }, { params: { preset: 'none' } });
    expect(Buffer.from(none.data).equals(Buffer.from(hopper.data))).toBe(true);
  });
});
