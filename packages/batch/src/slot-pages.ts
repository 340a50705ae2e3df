/**
 * Per-slot numbers in fixed-size pages of a typed array, grown a page at a
 * time: no copy and no slack beyond one page as a table grows (a typed array
 * grown by half and copied held both copies at once, and up to half again of
 * what it needed, at the moment memory peaked). Slot `s` is element
 * `offset(s)` of `page(s)`.
 */

/** Slots a page holds (a power of two). */
const SHIFT = 10;
export const PAGE_SLOTS = 1 << SHIFT;
const MASK = PAGE_SLOTS - 1;

export class SlotPages<A extends Uint8Array | Uint32Array | Float64Array> {
  private readonly pages: A[] = [];

  /** `per`: elements a slot; `make`: a zeroed array of n elements. */
  constructor(private readonly per: number, private readonly make: (n: number) => A) {}

  /** The page holding `slot`, allocated (with the ones before it) on first use. */
  page(slot: number): A {
    const p = slot >>> SHIFT;
    while (this.pages.length <= p) this.pages.push(this.make(PAGE_SLOTS * this.per));
    return this.pages[p]!;
  }

  /** Index of the slot's first element in its page. */
  offset(slot: number): number {
    return (slot & MASK) * this.per;
  }
}
