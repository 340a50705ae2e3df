import { defineConfig } from 'tsup';

// One CommonJS file for VS Code's extension host: `vscode` is provided by the
// host; everything else (@pfc/batch, @pfc/core) is bundled in, because the
// .vsix is packaged with `--no-dependencies` (npm workspaces hoist modules
// where vsce cannot follow them).
// A second entry: the worker thread of batch's JPEG rewrites, which batch finds beside its own code
// (`import.meta.url`, shimmed to this bundle's file name in CommonJS).
export default defineConfig({
  entry: { extension: 'src/extension.ts', 'rewrite-worker': 'src/rewrite-worker.ts' },
  shims: true,
  format: ['cjs'],
  platform: 'node',
  target: 'node20',
  outExtension: () => ({ js: '.js' }),
  // @pfc/emulator (sharp, native) is never bundled: the extension talks to a running emulator by URL, and
  // loads the launcher of its embedded one (`@pfc/emulator/process`) from the emulator's installation, by path.
  // @napi-rs/xattr (extended attributes, native) neither: it is loaded where Node finds it (an installation
  // beside the extension); without it, in-place runs say they cannot keep Finder tags or ratings.
  external: ['vscode', '@pfc/emulator', '@pfc/emulator/process', '@napi-rs/xattr'],
  noExternal: [/^(?!vscode$|@pfc\/emulator(\/process)?$|@napi-rs\/xattr$).*/],
  sourcemap: false,
  minify: true,
  clean: true,
  dts: false,
});
