/**
 * Folders below an input that hold another application's files rather than
 * the user's photos. They are left out, each with its reason, as hidden
 * folders are; naming such a folder itself as the input corrects it anyway.
 *
 * - A photo library package (Apple Photos, iPhoto, Aperture, Lightroom's
 *   library and previews, Capture One's catalogue) keeps its photos for its
 *   application, which tracks every file in it: corrected in place, the
 *   library would hold files it did not write; mirrored, a run over
 *   `~/Pictures` would correct the library's own originals, previews and
 *   thumbnails — tens of thousands of files, paid for on the hosted service.
 *   Photos in a library are corrected by exporting them first.
 * - An application bundle's images are its interface, not photos.
 * - A drive's recycle bin holds deleted files; `System Volume Information`
 *   is Windows' own. Both sit at the top of every Windows-formatted drive,
 *   so a camera card or backup drive corrected whole meets them; neither
 *   starts with a dot, so the hidden-folder rule does not cover them.
 * - In the user's home folder, macOS's `Library` and Windows' `AppData`
 *   hold applications' caches, support files and mail attachments: hidden
 *   by the system, though not dot-named, and full of images.
 */
import { homedir } from 'node:os';
import { extname, join, resolve } from 'node:path';

/** Package extensions (lower case), and what such a folder is. */
const PACKAGES: ReadonlyMap<string, string> = new Map([
  ['.photoslibrary', 'an Apple Photos library'],
  ['.migratedphotolibrary', 'an Apple Photos library'],
  ['.photolibrary', 'an iPhoto library'],
  ['.aplibrary', 'an Aperture library'],
  ['.lrlibrary', 'a Lightroom library'],
  ['.lrdata', "Lightroom's previews"],
  ['.cocatalog', 'a Capture One catalogue'],
  ['.app', 'an application bundle'],
]);

/** Folder names (lower case), and what such a folder is. */
const NAMED: ReadonlyMap<string, string> = new Map([
  ['photo booth library', 'the Photo Booth library'],
  ['$recycle.bin', "Windows' recycle bin"],
  ['recycler', "Windows' recycle bin"],
  ['system volume information', "a Windows system folder"],
]);

/** Folders of the home folder (`home`), and what each is. */
function inHome(path: string, home: string): string | undefined {
  const at = resolve(path);
  if (at === join(home, 'Library')) return "the user's Library (applications' caches and support files)";
  if (at === join(home, 'AppData')) return "the user's AppData (applications' caches and support files)";
  return undefined;
}

/**
 * Why the folder at `path`, named `name` and met below an input, is left out as another application's;
 * undefined for any other folder. `home`: the user's home folder (default: `os.homedir()`).
 *
 * @example
 * appFolderReason('Photos Library.photoslibrary', '/Users/ann/Pictures/Photos Library.photoslibrary'); // "an Apple Photos library: …"
 */
export function appFolderReason(name: string, path: string, home: string = homedir()): string | undefined {
  const lower = name.toLowerCase();
  const what = NAMED.get(lower) ?? PACKAGES.get(extname(lower)) ?? inHome(path, home);
  if (what === undefined) return undefined;
  return `${what}: another application's files, not corrected (export photos from it, or give this folder itself as the input to correct it anyway)`;
}
