/**
 * A compact, exact table of paths, numbered in the order they were added: the
 * per-file state of a batch (the manifest's outputs, the real paths planned)
 * without a JavaScript string per file. A path is kept as its folder (the text
 * up to its last `/` or `\`, interned: a batch has few folders) and its name's
 * characters in a pool of byte pages; it is found through an open-addressing
 * table of 32-bit hashes, and every hit is checked against the stored path, so
 * two different paths are never taken for one (a false "already planned" would
 * lose a user's output; a false "recorded" would skip a file).
 *
 * About a byte a name character (two when one is beyond Latin-1) plus 24 a
 * path (slot, table at most half full), in typed arrays grown a page at a
 * time, which the garbage collector neither walks nor multiplies:
 * a `Set<string>` of the same paths cost ~100 bytes a path in the heap, and the
 * heap's growth before a full collection a multiple of that in resident size.
 */

import { SlotPages } from './slot-pages';

/** Words a slot keeps: folder id, name's place in the pool (page << 16 | offset), name length (| `WIDE`), hash. */
const WORDS = 4;
/** The name is kept as UTF-16 code units, two bytes each (else one byte a character: every one below 256). */
const WIDE = 0x8000_0000;
/** Bytes a page of the name pool holds (a longer name gets a page of its own); offsets in a page fit 16 bits. */
const POOL_PAGE = 0x1_0000;

export class PathTable {
  private readonly folders: string[] = [];
  private readonly folderIds = new Map<string, number>();
  private readonly slots = new SlotPages(WORDS, (n) => new Uint32Array(n));
  /** The names, one after the other, in pages. */
  private readonly pool: Uint8Array[] = [];
  private poolUsed = 0;
  private count = 0;
  /** Open addressing, a power of two long, at most half full: slot + 1, 0 for free. */
  private table = new Uint32Array(0);

  /** Number of paths. */
  get size(): number {
    return this.count;
  }

  /** The slot of `path`, or -1. */
  find(path: string): number {
    const cut = cutOf(path);
    const folder = this.folderIds.get(path.slice(0, cut));
    if (folder === undefined || this.count === 0) return -1;
    return this.lookup(path, cut, folder, hashOf(path, cut, folder));
  }

  /** Whether `path` is in the table. */
  has(path: string): boolean {
    return this.find(path) >= 0;
  }

  /** The slot of `path`, added at the end (slot `size`) when it is new. */
  add(path: string): number {
    const cut = cutOf(path);
    const folder = this.folderIdOf(path.slice(0, cut));
    const hash = hashOf(path, cut, folder);
    if (this.count > 0) {
      const hit = this.lookup(path, cut, folder, hash);
      if (hit >= 0) return hit;
    }
    return this.append(path, cut, folder, hash);
  }

  /** The path of a slot. */
  pathOf(slot: number): string {
    return this.folderOf(slot) + this.nameOf(slot);
  }

  /** The folder part of a slot's path (up to and with its last separator; '' for none). */
  folderOf(slot: number): string {
    return this.folders[this.slots.page(slot)[this.slots.offset(slot)]!]!;
  }

  /** The name part of a slot's path. */
  nameOf(slot: number): string {
    const words = this.slots.page(slot);
    const w = this.slots.offset(slot);
    const place = words[w + 1]!;
    const page = this.pool[place >>> 16]!;
    const at = place & 0xffff;
    const length = words[w + 2]! & ~WIDE;
    const bytes = Buffer.from(page.buffer, page.byteOffset + at, words[w + 2]! & WIDE ? length * 2 : length);
    return bytes.toString(words[w + 2]! & WIDE ? 'utf16le' : 'latin1');
  }

  /** Every path, in slot order. */
  *paths(): Generator<string> {
    for (let slot = 0; slot < this.count; slot++) yield this.pathOf(slot);
  }

  /** The distinct folders of the paths, in the order first seen. */
  folderNames(): readonly string[] {
    return this.folders;
  }

  /** Room in the hash table for `paths` paths, so a table about to be filled is not rehashed as it grows. */
  reserve(paths: number): void {
    this.growTable(paths);
  }

  /** The slot holding `path`, or -1. */
  private lookup(path: string, cut: number, folder: number, hash: number): number {
    const mask = this.table.length - 1;
    const length = path.length - cut;
    for (let at = hash & mask; ; at = (at + 1) & mask) {
      const held = this.table[at]!;
      if (held === 0) return -1;
      const slot = held - 1;
      const words = this.slots.page(slot);
      const w = this.slots.offset(slot);
      if (words[w + 3] === hash && words[w] === folder && (words[w + 2]! & ~WIDE) === length && this.sameName(words[w + 1]!, words[w + 2]! & WIDE, path, cut)) return slot;
    }
  }

  private sameName(place: number, wide: number, path: string, cut: number): boolean {
    const page = this.pool[place >>> 16]!;
    const at = (place & 0xffff) - cut;
    if (wide) {
      for (let i = cut; i < path.length; i++) {
        const j = at + i + (i - cut);
        if ((page[j]! | (page[j + 1]! << 8)) !== path.charCodeAt(i)) return false;
      }
      return true;
    }
    for (let i = cut; i < path.length; i++) if (page[at + i] !== path.charCodeAt(i)) return false;
    return true;
  }

  private append(path: string, cut: number, folder: number, hash: number): number {
    const slot = this.count;
    const length = path.length - cut;
    this.growTable(slot + 1);
    const words = this.slots.page(slot);
    const w = this.slots.offset(slot);
    let wide = 0;
    for (let i = cut; i < path.length && !wide; i++) if (path.charCodeAt(i) > 0xff) wide = WIDE;
    words[w] = folder;
    words[w + 1] = this.storeName(path, cut, wide ? length * 2 : length, wide);
    words[w + 2] = (length | wide) >>> 0;
    words[w + 3] = hash;
    this.count++;
    this.place(slot, hash);
    return slot;
  }

  /** Copy the name into the pool (a new page when it does not fit the last one); returns its place. */
  private storeName(path: string, cut: number, bytes: number, wide: number): number {
    let page = this.pool.at(-1);
    if (!page || this.poolUsed + bytes > page.length || this.poolUsed >= POOL_PAGE) {
      if (this.pool.length >= 0x1_0000) throw new Error('path table full: more than 65,536 pages of names');
      page = new Uint8Array(Math.max(POOL_PAGE, bytes));
      this.pool.push(page);
      this.poolUsed = 0;
    }
    const at = this.poolUsed;
    if (wide) {
      for (let i = cut, j = at; i < path.length; i++, j += 2) {
        const c = path.charCodeAt(i);
        page[j] = c & 0xff;
        page[j + 1] = c >>> 8;
      }
    } else {
      for (let i = cut, j = at; i < path.length; i++, j++) page[j] = path.charCodeAt(i);
    }
    // A page of its own (a name longer than a page) is full.
    this.poolUsed = bytes > POOL_PAGE ? page.length : at + bytes;
    return (((this.pool.length - 1) << 16) | at) >>> 0;
  }

  /** Put a slot in the table at the first free position of its probe. */
  private place(slot: number, hash: number): void {
    const mask = this.table.length - 1;
    let at = hash & mask;
    while (this.table[at] !== 0) at = (at + 1) & mask;
    this.table[at] = slot + 1;
  }

  private folderIdOf(folder: string): number {
    let id = this.folderIds.get(folder);
    if (id === undefined) {
      id = this.folders.length;
      this.folders.push(folder);
      this.folderIds.set(folder, id);
    }
    return id;
  }

  /** A table at most half full: doubled (and every slot placed again) when a path more would fill it beyond. */
  private growTable(paths: number): void {
    if (paths * 2 <= this.table.length) return;
    let length = Math.max(64, this.table.length);
    while (paths * 2 > length) length *= 2;
    this.table = new Uint32Array(length);
    for (let slot = 0; slot < this.count; slot++) this.place(slot, this.slots.page(slot)[this.slots.offset(slot) + 3]!);
  }
}

/** Where a path's name starts: after its last `/` or `\` (either is kept with the folder, so the split loses nothing). */
function cutOf(path: string): number {
  return Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1;
}

/** A 32-bit hash of the folder's id (exported for the tests, which look for two names that share one) and the name's code units (FNV-1a, then murmur3's finaliser to spread the low bits). */
export function hashOf(path: string, cut: number, folder: number): number {
  let h = Math.imul(0x811c9dc5 ^ folder, 0x01000193);
  for (let i = cut; i < path.length; i++) h = Math.imul(h ^ path.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
