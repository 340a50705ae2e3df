/**
 * The plugin's manifest.json as the simulated Figma reads it: the id that
 * scopes clientStorage, the relaunch commands `setRelaunchData` accepts,
 * whether pages load as needed (`documentAccess`), and the `networkAccess`
 * the UI iframe's Content-Security-Policy is derived from.
 */
import manifest from '../../manifest.json';

export interface NetworkAccess {
  allowedDomains: string[];
  devAllowedDomains?: string[];
  reasoning?: string;
}

export const MANIFEST = manifest as {
  id: string;
  documentAccess?: 'dynamic-page';
  networkAccess: NetworkAccess;
  menu: ({ name: string; command: string } | { separator: true })[];
  relaunchButtons: { command: string; name: string }[];
};

export const MANIFEST_ID = MANIFEST.id;
export const RELAUNCH_COMMANDS: readonly string[] = MANIFEST.relaunchButtons.map((b) => b.command);
/** Whether Figma loads the document's pages only as needed for this plugin (manifest `"documentAccess": "dynamic-page"`). */
export const DYNAMIC_PAGES = MANIFEST.documentAccess === 'dynamic-page';
