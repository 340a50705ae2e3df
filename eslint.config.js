import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/*.config.*', 'bench/out/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Core runs in Node, in Figma's UI iframe and in Adobe UXP: no Node built-ins.
    files: ['packages/core/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*'], message: '@pfc/core must stay runtime-agnostic (Node, browser iframe, UXP): no node:* imports.' },
            {
              group: ['fs', 'fs/*', 'path', 'os', 'child_process', 'stream', 'stream/*', 'buffer', 'http', 'https', 'net', 'crypto', 'url', 'util', 'zlib', 'events', 'worker_threads'],
              message: '@pfc/core must stay runtime-agnostic: no Node built-ins.',
            },
          ],
        },
      ],
    },
  },
);
