/**
 * The compact path table answers as a `Set` of the same paths would: the same
 * membership for paths added and never added, each path back exactly as given
 * (separators of both kinds, no separator, non-ASCII, lone surrogates, long
 * names), and two different paths that share a 32-bit hash stay two.
 */
import { describe, expect, it } from 'vitest';
import { hashOf, PathTable } from '../src/path-table';

/** A seeded generator (so a failure can be replayed), 0 ≤ n < 1. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

const PARTS = ['d0', 'd1', 'Fotos', 'été', 'a b', 'x\\y', '', '日本', '\ud800', 'p', 'P'];

function randomPath(rand: () => number): string {
  const depth = Math.floor(rand() * 4);
  const sep = rand() < 0.2 ? '\\' : '/';
  const folders = Array.from({ length: depth }, () => PARTS[Math.floor(rand() * PARTS.length)]!);
  const long = rand() < 0.01 ? 'L'.repeat(5000 + Math.floor(rand() * 5000)) : '';
  const name = `${PARTS[Math.floor(rand() * PARTS.length)]}${Math.floor(rand() * 3000)}${long}.${rand() < 0.5 ? 'jpg' : 'JPG'}`;
  return [...folders, name].join(sep);
}

describe('PathTable', () => {
  it('answers as a Set of the same paths, and gives each back exactly, in the order added', () => {
    const rand = lcg(18);
    const table = new PathTable();
    const model = new Map<string, number>();
    for (let i = 0; i < 20_000; i++) {
      const p = randomPath(rand);
      const slot = table.add(p);
      if (!model.has(p)) model.set(p, model.size);
      expect(slot).toBe(model.get(p));
    }
    expect(table.size).toBe(model.size);
    for (let i = 0; i < 20_000; i++) {
      const p = randomPath(rand);
      expect(table.find(p)).toBe(model.get(p) ?? -1);
    }
    expect([...table.paths()]).toEqual([...model.keys()]);
    for (const [p, slot] of model) expect(table.folderOf(slot) + table.nameOf(slot)).toBe(p);
    // Paths that differ only where a hash could lose them: case, a separator moved, a prefix.
    table.add('a/b.jpg');
    expect(table.has('A/b.jpg')).toBe(false);
    expect(table.has('a\\b.jpg')).toBe(false);
    expect(table.has('a/b.jp')).toBe(false);
    expect(table.has('a/b.jpgx')).toBe(false);
    expect(table.has('b.jpg')).toBe(false);
  });

  it('keeps two paths apart that share a 32-bit hash (a hit is checked against the path)', () => {
    // Birthday search: among a few hundred thousand names of one folder two share a hash.
    const seen = new Map<number, string>();
    let pair: [string, string] | undefined;
    for (let i = 0; !pair && i < 2_000_000; i++) {
      const name = `f/n${i}.jpg`;
      const h = hashOf(name, 2, 0);
      const other = seen.get(h);
      if (other) pair = [other, name];
      else seen.set(h, name);
    }
    expect(pair).toBeDefined();
    const [a, b] = pair!;
    const table = new PathTable();
    expect(table.add(a)).toBe(0);
    expect(table.has(b)).toBe(false);
    expect(table.add(b)).toBe(1);
    expect(table.find(a)).toBe(0);
    expect(table.find(b)).toBe(1);
  });

  it('finds nothing in an empty table, grows past its reserve, and keeps names longer than a page and empty ones', () => {
    const table = new PathTable();
    expect(table.find('x.jpg')).toBe(-1);
    table.reserve(4);
    const paths: string[] = [];
    for (let i = 0; i < 30_000; i++) {
      // Among them: a name longer than a page of the pool, one beyond Latin-1 of two pages' bytes, empty names.
      const p = i === 7 ? `d/${'n'.repeat(70_000)}` : i === 9 ? `d/${'é日'.repeat(40_000)}` : i % 5000 === 3 ? `d${i}/` : `d/${i}ü.jpg`;
      paths.push(p);
      expect(table.add(p)).toBe(i);
    }
    for (let i = 0; i < paths.length; i++) {
      expect(table.find(paths[i]!)).toBe(i);
      expect(table.pathOf(i)).toBe(paths[i]);
    }
    expect(table.has(`d/${'n'.repeat(69_999)}`)).toBe(false);
    expect(table.size).toBe(30_000);
  });
});
