/**
 * Stand-in for `sharp` in the extension bundle. @pfc/batch's HTML report makes
 * thumbnails with sharp, a native module that a platform-neutral .vsix cannot
 * carry; the extension shows its report in a webview from the files on disk and
 * never calls that code. Should it ever be reached, it fails with a clear message.
 */
function sharpUnavailable(): never {
  throw new Error('sharp is not available inside the VS Code extension (the report is shown in a webview instead)');
}
export default sharpUnavailable;
