// The repository's rules plus Figma's plugin rules (deprecated sync APIs,
// dynamic-page advice), which need type information from the main-thread tsconfig.
import figmaPlugin from '@figma/eslint-plugin-figma-plugins';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import root from '../../eslint.config.js';

export default tseslint.config(
  ...root,
  { ignores: ['dist/**', 'test-results/**'] },
  {
    files: ['src/ui/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['src/main/**/*.ts', 'src/shared/**/*.ts', 'test/sim/**/*.ts'],
    languageOptions: {
      parserOptions: { project: ['./tsconfig.json', './tsconfig.test.json'], tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@figma/figma-plugins': figmaPlugin },
    rules: { ...figmaPlugin.flatConfigs.recommended.rules },
  },
);
