/**
 * A compact, exact table of paths, numbered in the order they were added: the
 * per-file state of a batch (the manifest's outputs, the real paths planned)
 * without a JavaScript string per file. A path is kept as its folder (the text
 * up to its last `/` or `\`, interned: a batch has few folders) and its name's
 * UTF-16 code units in one typed pool; it is found through an open-addressing
 * table of 32-bit hashes, and every hit is checked against the stored path, so
 * two different paths are never taken for one (a false "already planned" would
 * lose a user's output; a false "recorded" would skip a file).
 *
 * About 2 bytes a name character plus 24 a path (slot, table at most half
 * full), in typed arrays the garbage collector neither walks nor multiplies:
 * a `Set<string>` of the same paths cost ~100 bytes a path in the heap, and the
 * heap's growth before a full collection a multiple of that in resident size.
 */

/** Words a slot keeps: folder id, name start in the pool, name length, hash. */
const WORDS = 4;
/** Names longer than this are turned back into text in pieces (`String.fromCharCode`'s argument count). */
const PIECE = 4096;

export class PathTable {
  private readonly folders: string[] = [];
  private readonly folderIds = new Map<string, number>();
  /** `WORDS` per slot. */
  private slots = new Uint32Array(0);
  /** The names' UTF-16 code units, one after the other. */
  private chars = new Uint16Array(0);
  private charsUsed = 0;
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
    return this.folders[this.slots[slot * WORDS]!]! + this.nameOf(slot);
  }

  /** The folder part of a slot's path (up to and with its last separator; '' for none). */
  folderOf(slot: number): string {
    return this.folders[this.slots[slot * WORDS]!]!;
  }

  /** The name part of a slot's path. */
  nameOf(slot: number): string {
    const at = this.slots[slot * WORDS + 1]!;
    const length = this.slots[slot * WORDS + 2]!;
    let name = '';
    for (let i = 0; i < length; i += PIECE) name += String.fromCharCode(...this.chars.subarray(at + i, at + Math.min(length, i + PIECE)));
    return name;
  }

  /** Every path, in slot order. */
  *paths(): Generator<string> {
    for (let slot = 0; slot < this.count; slot++) yield this.pathOf(slot);
  }

  /** The distinct folders of the paths, in the order first seen. */
  folderNames(): readonly string[] {
    return this.folders;
  }

  /** Room for `paths` paths of about `nameChars` characters each in all, so a table about to be filled grows once. */
  reserve(paths: number, nameChars = paths * 16): void {
    this.growSlots(paths);
    this.growChars(nameChars);
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
      const w = slot * WORDS;
      if (this.slots[w + 3] === hash && this.slots[w] === folder && this.slots[w + 2] === length && this.sameName(this.slots[w + 1]!, path, cut)) return slot;
    }
  }

  private sameName(at: number, path: string, cut: number): boolean {
    const { chars } = this;
    for (let i = cut; i < path.length; i++) if (chars[at + i - cut] !== path.charCodeAt(i)) return false;
    return true;
  }

  private append(path: string, cut: number, folder: number, hash: number): number {
    const slot = this.count;
    const length = path.length - cut;
    this.growSlots(slot + 1);
    this.growChars(this.charsUsed + length);
    this.growTable(slot + 1);
    for (let i = cut; i < path.length; i++) this.chars[this.charsUsed + i - cut] = path.charCodeAt(i);
    const w = slot * WORDS;
    this.slots[w] = folder;
    this.slots[w + 1] = this.charsUsed;
    this.slots[w + 2] = length;
    this.slots[w + 3] = hash;
    this.charsUsed += length;
    this.count++;
    this.place(slot, hash);
    return slot;
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

  private growSlots(slots: number): void {
    if (slots * WORDS <= this.slots.length) return;
    const next = new Uint32Array(Math.max(64, Math.ceil(slots * 1.5)) * WORDS);
    next.set(this.slots);
    this.slots = next;
  }

  private growChars(chars: number): void {
    if (chars <= this.chars.length) return;
    const next = new Uint16Array(Math.max(1024, Math.ceil(chars * 1.5)));
    next.set(this.chars.subarray(0, this.charsUsed));
    this.chars = next;
  }

  /** A table at most half full: doubled (and every slot placed again) when a path more would fill it beyond. */
  private growTable(paths: number): void {
    if (paths * 2 <= this.table.length) return;
    let length = Math.max(64, this.table.length);
    while (paths * 2 > length) length *= 2;
    this.table = new Uint32Array(length);
    for (let slot = 0; slot < this.count; slot++) this.place(slot, this.slots[slot * WORDS + 3]!);
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
