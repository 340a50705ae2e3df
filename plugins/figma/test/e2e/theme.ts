/**
 * The CSS variables Figma injects into a plugin iframe (`<style id="figma-style">`)
 * when `showUI` is called with `themeColors: true`: the subset the UI uses,
 * with Figma's published light and dark values.
 */
const LIGHT = {
  'bg': '#ffffff',
  'bg-secondary': '#f5f5f5',
  'bg-brand': '#0d99ff',
  'bg-brand-hover': '#007be5',
  'bg-danger-tertiary': '#fff1ee',
  'text': 'rgba(0, 0, 0, 0.9)',
  'text-secondary': 'rgba(0, 0, 0, 0.5)',
  'text-onbrand': '#ffffff',
  'text-danger': '#dc3412',
  'text-success': '#14ae5c',
  'border': '#e6e6e6',
};
const DARK: typeof LIGHT = {
  'bg': '#2c2c2c',
  'bg-secondary': '#383838',
  'bg-brand': '#0c8ce9',
  'bg-brand-hover': '#0a6dc2',
  'bg-danger-tertiary': '#4d2622',
  'text': '#ffffff',
  'text-secondary': 'rgba(255, 255, 255, 0.7)',
  'text-onbrand': '#ffffff',
  'text-danger': '#fca397',
  'text-success': '#79d297',
  'border': '#444444',
};

const css = (vars: typeof LIGHT) => Object.entries(vars).map(([k, v]) => `--figma-color-${k}: ${v};`).join('');

export const THEME_VARIABLES = { light: css(LIGHT), dark: css(DARK) } as const;
