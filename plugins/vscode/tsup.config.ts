import { defineConfig } from 'tsup';

// One CommonJS file for VS Code's extension host: `vscode` is provided by the
// host; everything else (@pfc/batch, @pfc/core) is bundled in, because the
// .vsix is packaged with `--no-dependencies` (npm workspaces hoist modules
// where vsce cannot follow them).
export default defineConfig({
  entry: { extension: 'src/extension.ts' },
  format: ['cjs'],
  platform: 'node',
  target: 'node20',
  outExtension: () => ({ js: '.js' }),
  // @pfc/emulator (sharp, native) is never bundled: the extension talks to a running emulator by URL.
  external: ['vscode', '@pfc/emulator'],
  noExternal: [/^(?!vscode$|@pfc\/emulator$).*/],
  sourcemap: false,
  minify: true,
  clean: true,
  dts: false,
});
