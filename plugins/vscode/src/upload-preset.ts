/** "Upload as Custom Preset": send a `.preset` file to the account (Web API or emulator). */
import { basename, extname } from 'node:path';
import { stat } from 'node:fs/promises';
import { fileInputFromPath } from '@pfc/batch';
import type { ResolvedBackend } from './backend';
import type { Log } from './log';
import type { VscodeApi } from './vscode-api';

/** Ask for the name (default: the file name) and a description, then upload. Resolves the preset name, or undefined. */
export async function uploadPreset(api: VscodeApi, log: Log, backend: ResolvedBackend, path: string): Promise<string | undefined> {
  const { t } = api.l10n;
  if (!backend.web) {
    void api.window.showErrorMessage(t('Perfectly Clear: custom presets live in a Web API account; {0} has none. Switch pfc.backend to hosted or emulator.', backend.label));
    return undefined;
  }
  if (extname(path).toLowerCase() !== '.preset') {
    void api.window.showErrorMessage(t('Perfectly Clear: {0} is not a .preset file.', basename(path)));
    return undefined;
  }
  const name = await api.window.showInputBox({
    title: t('Perfectly Clear: preset name'),
    prompt: t('The name used to pick this preset later'),
    value: basename(path, extname(path)),
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() === '' ? t('The name cannot be empty.') : v.length > 200 ? t('At most {0} characters.', 200) : undefined),
  });
  if (name === undefined) return undefined;
  const description = await api.window.showInputBox({ title: t('Perfectly Clear: preset description (optional)'), ignoreFocusOut: true });
  if (description === undefined) return undefined;
  const size = (await stat(path)).size;
  const created = await api.window.withProgress(
    { location: api.ProgressLocation.Notification, title: t('Perfectly Clear: uploading preset "{0}"', name.trim()), cancellable: true },
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
  void api.window.showInformationMessage(t('Perfectly Clear: preset "{0}" uploaded; it is listed in the preset picker.', created.name));
  return created.name;
}
