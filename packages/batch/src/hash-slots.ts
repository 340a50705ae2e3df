/**
 * Slots found by a 32-bit key: the manifest's outputs by the hash of the
 * result recorded for them (four bytes of it), so that a photo that is one of
 * pfc's results under another name (renamed or copied by the user) is told
 * from a new original, and by the result's size, so that only files of a
 * recorded result's size are read to ask that. Keys are spread again (so that
 * keys in a run, as in tests, do not cluster), open addressing at most half
 * full, 4–8 bytes a slot in one typed array; every hit is checked by the
 * caller against the whole value, so a shared key never makes two one.
 */
export class HashSlots {
  /** Slot + 1, 0 for free; a power of two long. */
  private table = new Uint32Array(0);
  private count = 0;

  constructor(
    /** The key of a slot's current hash, or undefined when it has none to be found by. */
    private readonly keyOf: (slot: number) => number | undefined,
    /** How many slots there are (all are placed again when the table grows). */
    private readonly slots: () => number,
  ) {
    this.rebuild(slots());
  }

  /** Note that `slot` now holds a hash whose key is `key` (a slot given a new hash is added again: a stale place only costs a failed check). */
  add(key: number, slot: number): void {
    if ((this.count + 1) * 2 > this.table.length) this.rebuild(this.slots());
    this.place(key, slot);
  }

  /** The slots that may hold a hash whose key is `key`; the caller checks each. */
  *candidates(key: number): Generator<number> {
    const mask = this.table.length - 1;
    for (let at = spread(key) & mask; ; at = (at + 1) & mask) {
      const held = this.table[at]!;
      if (held === 0) return;
      yield held - 1;
    }
  }

  private place(key: number, slot: number): void {
    const mask = this.table.length - 1;
    let at = spread(key) & mask;
    while (this.table[at] !== 0) at = (at + 1) & mask;
    this.table[at] = slot + 1;
    this.count++;
  }

  /** Every slot placed afresh in a table at most half full with room to grow (stale places dropped). */
  private rebuild(slots: number): void {
    let length = 64;
    while ((slots + 1) * 4 > length) length *= 2;
    this.table = new Uint32Array(length);
    this.count = 0;
    for (let slot = 0; slot < slots; slot++) {
      const key = this.keyOf(slot);
      if (key !== undefined) this.place(key, slot);
    }
  }
}

/** murmur3's finaliser: every bit of the key moves the low bits the table uses. */
function spread(key: number): number {
  let h = key ^ (key >>> 16);
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
