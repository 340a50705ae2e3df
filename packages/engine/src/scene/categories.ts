/**
 * Scene categories reported as the integer `scene` (job `detectionData.scene`,
 * the container's `scene` field) and used to pick the per-scene variant of an
 * AI preset group.
 */
export const SCENE = {
  /** Not analysed or not decidable (the container's documented −1). */
  unknown: -1,
  /** A photo that fits no other category (objects, interiors, food, animals). */
  general: 0,
  /** One person's face is a main subject. */
  portrait: 1,
  /** Two or more faces. */
  group: 2,
  /** Outdoor scene with sky and no main face. */
  landscape: 3,
  /** Night or low-light scene: dark overall, with bright light sources. */
  night: 4,
  /** High-key scene: mostly bright (snow, beach, white studio). */
  highKey: 5,
  /** Not a photo: graphics, clipart, screenshots (few flat colours). */
  clipart: 6,
} as const;

export type SceneName = keyof typeof SCENE;
export type SceneId = (typeof SCENE)[SceneName];

/** Name of a scene id, e.g. `portrait` for 1. */
export function sceneName(id: number): SceneName {
  const hit = (Object.keys(SCENE) as SceneName[]).find((k) => SCENE[k] === id);
  return hit ?? 'unknown';
}
