/**
 * Reads a written report as its page's script would: the meta, the chunks in
 * the page, and the chunks from the companion folder (by the address the page
 * gives), so tests check what a reader can reach, not how it is written.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ReportMeta as WrittenMeta } from '../src/report-data';

export type Row = [rel: string, status: string, original: string, output: string, input: string, bytesOut: string, time: string, jobId: string, backup: string, pid: number, error: string, warnings: string[], before: [string, number, number] | 0, after: [string, number, number] | 0, video: 0 | 1, folder: number];
export type Folder = [name: string, corrected: number, upToDate: number, failed: number, cancelled: number, chunks: string[]];

/** The meta the page carries: the writer's, and the address of the companion folder's chunks. */
export type ReportMeta = WrittenMeta & { base: string };

export interface ReadReport {
  html: string;
  meta: ReportMeta;
  /** Names of the chunks written into the page. */
  inline: string[];
  /** A chunk's rows, from the page or from its file beside the page. */
  chunk<T = Row>(name: string): T[];
  /** A file beside the page, by its address in the page; undefined when missing. */
  file(href: string): string | undefined;
  /** Every row of a list (`f` failures, `c` the others), in order. */
  list(prefix: 'f' | 'c'): Row[];
  folders(): Folder[];
}

export function readReport(page: string): ReadReport {
  const html = readFileSync(page, 'utf8');
  const metaJson = /<script type="application\/json" id="pfc-report-meta">(.*?)<\/script>/s.exec(html)?.[1];
  if (!metaJson) throw new Error('no report meta in the page');
  const meta = JSON.parse(metaJson) as ReportMeta;
  const inline = new Map<string, string>();
  for (const m of html.matchAll(/<script>pfcReportChunk\("([^"]+)",(.*?)\);<\/script>/gs)) inline.set(m[1]!, m[2]!);
  const file = (href: string): string | undefined => {
    const path = join(dirname(page), ...href.split('/').map(decodeURIComponent));
    return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
  };
  const chunk = <T>(name: string): T[] => {
    const text = inline.get(name) ?? /^pfcReportChunk\("[^"]+",(.*)\);\n$/s.exec(file(`${meta.base}${encodeURIComponent(name)}.js`) ?? '')?.[1];
    if (text === undefined) throw new Error(`chunk ${name} is neither in the page nor beside it`);
    return JSON.parse(text) as T[];
  };
  const list = (prefix: 'f' | 'c'): Row[] => {
    const n = prefix === 'f' ? meta.failures.chunks : meta.files.chunks;
    return Array.from({ length: n }, (_, i) => chunk<Row>(`${prefix}${i}`)).flat();
  };
  return { html, meta, inline: [...inline.keys()], chunk, file, list, folders: () => chunk<Folder>('folders') };
}
