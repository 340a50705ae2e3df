/** Background removal and replacement: composition, shadows, generated backdrops. */
export { composeBackground, type BackgroundOptions } from './compose';
export { generateBackground, backgroundSvg, promptTheme, promptColours, BACKGROUND_THEMES, type BackgroundTheme } from './generate';
export { shadowPlane, subjectBox, SHADOW_OPACITY, type ShadowKind, type Plane8 } from './shadow';
