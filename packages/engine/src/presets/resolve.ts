/**
 * Resolves the `preset` parameter to the colour parameters for one image.
 */
import { FINISH_STEPS, type FinishStep } from '../colour/finish';
import { NEUTRAL_COLOUR_PARAMS, type ColourParams } from '../colour/params';
import { sceneName, type SceneId } from '../scene/categories';
import { groupParams, isBuiltInGroup } from './builtin';
import { parsePresetFile } from './custom';

/** How a preset was resolved. */
export interface ResolvedPreset {
  /** `none`, a built-in group name, or the custom preset's name. */
  name: string;
  /** Whether the parameters depend on the detected scene (AI preset selection). */
  aiSelection: boolean;
  params: ColourParams;
  /**
   * Finishing steps (sharpening, vibrance) whose amount the custom preset
   * file sets itself: applied as given. A built-in group's amount is the most
   * the look adds, scaled by what the photo needs (colour/finish.ts); a value
   * a user wrote down is a choice, not a default.
   */
  asGiven: FinishStep[];
  /** Set when a custom preset file could not be read: what was applied instead and why. */
  note?: string;
}

/** The group used when no preset is named, and when a custom file cannot be read. */
export const DEFAULT_GROUP = 'Universal';

/**
 * Resolve a preset name (undefined = AI preset selection) for a scene.
 * `presetFile` is the custom preset's file when the name is neither `none`
 * nor a built-in group.
 */
export function resolvePreset(name: string | undefined, scene: SceneId, presetFile?: Uint8Array): ResolvedPreset {
  if (name === 'none') return { name, aiSelection: false, params: { ...NEUTRAL_COLOUR_PARAMS }, asGiven: [] };
  const group = name ?? DEFAULT_GROUP;
  if (isBuiltInGroup(group)) return { name: group, aiSelection: true, params: groupParams(group, scene), asGiven: [] };
  if (!presetFile) throw new Error(`preset "${name}" is not a built-in group (or none) and no preset file was given for it`);
  const parsed = parsePresetFile(presetFile);
  if (!parsed.ok) {
    return {
      name: group,
      aiSelection: true,
      params: groupParams(DEFAULT_GROUP, scene),
      asGiven: [],
      note: `preset "${group}" is in a format this engine does not read (${parsed.reason}); applied ${DEFAULT_GROUP} instead`,
    };
  }
  const { base, params, scenes } = parsed.preset;
  const start = base ? groupParams(base, scene) : { ...NEUTRAL_COLOUR_PARAMS };
  const perScene = scenes[sceneName(scene)] ?? {};
  const own = { ...params, ...perScene };
  return {
    name: group,
    aiSelection: base !== undefined || Object.keys(scenes).length > 0,
    params: { ...start, ...own },
    asGiven: FINISH_STEPS.filter((step) => own[step] !== undefined),
  };
}
