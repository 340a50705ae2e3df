/** `pfc presets list|get|create|delete|download`. */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileInputFromPath, writeFileAtomic } from '@pfc/batch';
import { parse } from '../args';
import { PRESETS_HELP } from '../help';
import { type CliIo, EXIT, UsageError } from '../io';
import { shown } from '../render';
import { escapeControls } from '../terminal';
import { openWeb, WEB_FLAGS } from './web';

export async function presetsCommand(argv: string[], io: CliIo): Promise<number> {
  const { values: v, positionals } = parse(argv, {
    ...WEB_FLAGS,
    name: { type: 'string' },
    description: { type: 'string' },
    out: { type: 'string', short: 'o' },
  }, 'presets');
  const [action, arg, ...extra] = positionals;
  if (v.help || action === undefined) {
    io.stdout.write(PRESETS_HELP);
    return v.help ? EXIT.ok : EXIT.usage;
  }
  const actions = ['list', 'get', 'create', 'delete', 'download'];
  if (!actions.includes(action)) throw new UsageError(`unknown presets action ${JSON.stringify(action)}: use one of ${actions.join(', ')}`);
  if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])} (see: pfc presets --help)`);
  if (action !== 'list' && !arg) throw new UsageError(`pfc presets ${action} needs ${action === 'create' ? 'a .preset file' : 'a presetId'}`);
  if (action === 'list' && arg) throw new UsageError(`pfc presets list takes no argument (got ${JSON.stringify(arg)})`);
  if (action === 'create' && !v.name) throw new UsageError('pfc presets create needs --name NAME (the name used later as --preset NAME)');
  const out = (line: string) => io.stdout.write(`${line}\n`);

  const { web } = await openWeb(io, v, 'presets');
  switch (action) {
    case 'list': {
      let n = 0;
      for await (const p of web.presets.list()) {
        n++;
        out(v.json ? JSON.stringify(p) : [p.name, p.presetId, ...(p.description ? [p.description] : [])].map((f) => escapeControls(f)).join('\t'));
      }
      if (!v.json && n === 0) io.stderr.write('No custom presets.\n');
      return EXIT.ok;
    }
    case 'get':
      out(JSON.stringify(await web.presets.get(arg!), null, v.json ? undefined : 2));
      return EXIT.ok;
    case 'create': {
      const path = resolve(io.cwd, arg!);
      // With its size, so the stream goes with a Content-Length: pre-signed storage refuses a chunked PUT (501).
      const created = await web.presets.create({ name: v.name!, description: v.description ?? '', file: fileInputFromPath(path), size: (await stat(path)).size });
      out(v.json ? JSON.stringify(created) : `Created preset "${created.name}" (${created.presetId}); use it with --preset "${created.name}".`);
      return EXIT.ok;
    }
    case 'delete':
      await web.presets.delete(arg!);
      if (!v.json) out(`Deleted preset ${arg}.`);
      return EXIT.ok;
    case 'download': {
      const record = await web.presets.get(arg!);
      const bytes = await web.presets.download(record);
      const dest = resolve(io.cwd, v.out ?? `${safeName(record.name || record.presetId)}.preset`);
      await writeFileAtomic(dest, bytes);
      out(v.json ? JSON.stringify({ presetId: record.presetId, file: dest, bytes: bytes.byteLength }) : `Saved ${shown(io.cwd, dest)} (${bytes.byteLength} bytes).`);
      return EXIT.ok;
    }
  }
  return EXIT.usage;
}

/** A preset name as a file name: no separators or control characters. */
function safeName(name: string): string {
  // eslint-disable-next-line no-control-regex
  return name.replace(/[/\\:*?"<>|\x00-\x1f]/g, '_').trim() || 'preset';
}
