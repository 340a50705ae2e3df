/**
 * Where does a secret appear? Searches texts (process output, logs) and every
 * file under the given folders, byte for byte, also in the encodings a
 * leak would take in a URL or JSON (percent-encoded, base64).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

function forms(secret) {
  return [secret, encodeURIComponent(secret), Buffer.from(secret).toString('base64')].filter((f, i, a) => a.indexOf(f) === i);
}

/**
 * `texts`: { label: string }; `dirs`: folders searched recursively (files of
 * any kind); `skipDirs`: folders under them to leave out. Returns
 * { hits: ['where'], searched: { texts, files, bytes } }.
 */
export function findSecret(secret, { texts = {}, dirs = [], skipDirs = [] }) {
  const needles = forms(secret).map((f) => Buffer.from(f));
  const hits = [];
  const searched = { texts: 0, files: 0, bytes: 0 };
  for (const [label, text] of Object.entries(texts)) {
    searched.texts++;
    searched.bytes += Buffer.byteLength(text ?? '');
    if (needles.some((n) => Buffer.from(text ?? '').includes(n))) hits.push(label);
  }
  const skip = skipDirs.map((d) => path.resolve(d) + path.sep);
  for (const dir of dirs) {
    for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (!e.isFile()) continue;
      const file = path.join(e.parentPath, e.name);
      if (skip.some((s) => file.startsWith(s))) continue;
      const bytes = readFileSync(file);
      searched.files++;
      searched.bytes += bytes.length;
      if (needles.some((n) => bytes.includes(n))) hits.push(file);
    }
  }
  return { hits, searched };
}
