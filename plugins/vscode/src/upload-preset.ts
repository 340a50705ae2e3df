/** "Upload as Custom Preset": send a `.preset` file to the account (Web API or emulator). */
import { basename, extname } from 'node:path';
import { stat } from 'node:fs/promises';
import { fileInputFromPath } from '@pfc/batch';
import type { ResolvedBackend } from './backend';
import type { Log } from './log';
import type { VscodeApi } from './vscode-api';

/** Ask for the name (default: the file name) and a description, then upload. Resolves the preset name, or undefined. */
export async function uploadPreset(api: VscodeApi, log: Log, backend: ResolvedBackend, path: string): Promise<string | undefined> {
  if (!backend.web) {
    void api.window.showErrorMessage(`Perfectly Clear: custom presets live in a Web API account; ${backend.label} has none. Switch pfc.backend to hosted or emulator.`);
    return undefined;
  }
  if (extname(path).toLowerCase() !== '.preset') {
    void api.window.showErrorMessage(`Perfectly Clear: ${basename(path)} is not a .preset file.`);
    return undefined;
  }
  const name = await api.window.showInputBox({
    title: 'Perfectly Clear: preset name',
    prompt: 'The name used to pick this preset later',
    value: basename(path, extname(path)),
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() === '' ? 'The name cannot be empty.' : v.length > 200 ? 'At most 200 characters.' : undefined),
  });
  if (name === undefined) return undefined;
  const description = await api.window.showInputBox({ title: 'Perfectly Clear: preset description (optional)', ignoreFocusOut: true });
  if (description === undefined) return undefined;
  const size = (await stat(path)).size;
  const created = await api.window.withProgress(
    { location: api.ProgressLocation.Notification, title: `Perfectly Clear: uploading preset "${name.trim()}"`, cancellable: true },
    async (_p, token) => {
      const controller = new AbortController();
      const sub = token.onCancellationRequested(() => controller.abort());
      try {
        return await backend.web!.presets.create({ name: name.trim(), description, file: fileInputFromPath(path), size, signal: controller.signal });
      } finally {
        sub.dispose();
      }
    },
  );
  log.line(`uploaded preset "${created.name}" (${created.presetId}) from ${path}`);
  void api.window.showInformationMessage(`Perfectly Clear: preset "${created.name}" uploaded; it is listed in the preset picker.`);
  return created.name;
}
