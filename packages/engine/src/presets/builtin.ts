/**
 * The four built-in preset groups. Each group is an "AI preset": a base
 * parameter set plus adjustments per detected scene, so the same group treats
 * a portrait and a night shot differently.
 */
import type { ColourParams } from '../colour/params';
import { NEUTRAL_COLOUR_PARAMS } from '../colour/params';
import { SCENE, type SceneId } from '../scene/categories';

export const BUILT_IN_GROUPS = ['Universal', 'Pro', 'School and Sports', 'Attractions and Cruise Lines'] as const;
export type BuiltInGroup = (typeof BUILT_IN_GROUPS)[number];

type Partial_ = Partial<ColourParams>;

/** A group: base parameters and per-scene overrides. */
export interface PresetGroup {
  description: string;
  base: ColourParams;
  scenes: Partial<Record<SceneId, Partial_>>;
}

const full = (p: Partial_): ColourParams => ({ ...NEUTRAL_COLOUR_PARAMS, ...p });

/**
 * The groups. Values are documented in the package README; change both together.
 */
export const PRESET_GROUPS: Readonly<Record<BuiltInGroup, PresetGroup>> = {
  Universal: {
    description: 'Balanced automatic correction for any photo.',
    base: full({ exposure: 1, whiteBalance: 1, contrast: 1, vibrance: 0.08, sharpen: 0.4 }),
    scenes: {
      [SCENE.portrait]: { vibrance: 0.08, sharpen: 0.25 },
      [SCENE.group]: { vibrance: 0.1, sharpen: 0.35 },
      [SCENE.landscape]: { vibrance: 0.2, sharpen: 0.45 },
      [SCENE.night]: { exposure: 0.6, sharpen: 0.15, vibrance: 0.1 },
      [SCENE.highKey]: { exposure: 0.5 },
      [SCENE.clipart]: { ...NEUTRAL_COLOUR_PARAMS },
    },
  },
  Pro: {
    description: 'Conservative correction for well-exposed professional photos: smaller corrections, no extra colour.',
    base: full({ exposure: 0.6, whiteBalance: 0.7, contrast: 0.6, vibrance: 0, sharpen: 0.25 }),
    scenes: {
      [SCENE.night]: { exposure: 0.3, sharpen: 0.1 },
      [SCENE.clipart]: { ...NEUTRAL_COLOUR_PARAMS },
    },
  },
  'School and Sports': {
    description: 'Portraits and action: full exposure and colour correction, crisper detail, slightly warm skin.',
    base: full({ exposure: 1, whiteBalance: 1, contrast: 1, vibrance: 0.12, sharpen: 0.7, warmth: 0.05 }),
    scenes: {
      [SCENE.portrait]: { sharpen: 0.5 },
      [SCENE.landscape]: { vibrance: 0.2, warmth: 0 },
      [SCENE.night]: { exposure: 0.7, sharpen: 0.3 },
      [SCENE.clipart]: { ...NEUTRAL_COLOUR_PARAMS },
    },
  },
  'Attractions and Cruise Lines': {
    description: 'Vivid holiday look: full correction, stronger vibrance, a little brighter.',
    base: full({ exposure: 1, whiteBalance: 0.9, contrast: 1, vibrance: 0.35, sharpen: 0.5, brightness: 0.1 }),
    scenes: {
      [SCENE.portrait]: { vibrance: 0.2 },
      [SCENE.group]: { vibrance: 0.25 },
      [SCENE.landscape]: { vibrance: 0.45, saturation: 0.05 },
      [SCENE.night]: { exposure: 0.7, brightness: 0.2, sharpen: 0.2 },
      [SCENE.clipart]: { ...NEUTRAL_COLOUR_PARAMS },
    },
  },
};

/** Whether a preset name selects a built-in group. */
export function isBuiltInGroup(name: string): name is BuiltInGroup {
  return (BUILT_IN_GROUPS as readonly string[]).includes(name);
}

/** The parameters a group applies to a scene. */
export function groupParams(group: BuiltInGroup, scene: SceneId): ColourParams {
  const g = PRESET_GROUPS[group];
  return { ...g.base, ...(g.scenes[scene] ?? {}) };
}
