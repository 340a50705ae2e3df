/**
 * The manifest's index in memory, compact and off the garbage-collected heap:
 * one slot per output, its path in a `PathTable` (an interned folder and the
 * name's code units, found by hash and checked exactly), its numbers in typed
 * arrays, its hashes and job id as raw bytes in one buffer, its input path as
 * an interned folder plus its output's name (or, when the names differ, a slot
 * of a second `PathTable`), its settings as a small number, all in pages grown
 * as needed. About 170 bytes a file, none of it a JavaScript string or object per file: a `Map` keyed by
 * the output path (~290 bytes a file in the heap) grew a 100,000-file run's
 * resident size by several times that through the heap's growth.
 * `get` builds a `ManifestEntry` when one is asked for.
 */
import type { PfcParams } from '@pfc/core';
import { HashSlots } from './hash-slots';
import { type ManifestEntry, unpackHash } from './manifest-lines';
import { PathTable } from './path-table';
import { SlotPages } from './slot-pages';

/** The fields of a version-2 `done` line the index keeps (see `manifest-lines.ts`). */
export interface PackedLine {
  o: string;
  i: string;
  ih: string;
  is: number;
  im: number;
  oh: string;
  os: number;
  om: number;
  j?: string;
  d: number;
}

/** A settings line's key, backend and parameters (shared by every entry of the key). */
export interface IndexSettings {
  key: string;
  backend: string;
  params: PfcParams;
}

/** A file's size and modification time, as a manifest records them. */
export interface FileStat {
  size: number;
  mtimeMs: number;
}

/** The stats of an entry's input, its result, or both. */
export interface RecordedStats {
  input?: FileStat;
  output?: FileStat;
}

const SHA = 'sha256:';
/** A size as a 32-bit key (files over 4 GiB fold onto smaller sizes: every hit is checked against the whole size). */
const sizeKey = (size: number): number => (size % 0x1_0000_0000) >>> 0;
const HEX64 = /^[0-9a-f]{64}$/;
/** 36 characters with dashes where a UUID has them (the hex digits are checked by writing and reading them back). */
function isUuidShape(id: string): boolean {
  return id.length === 36 && id[8] === '-' && id[13] === '-' && id[18] === '-' && id[23] === '-';
}
/** Bytes a slot keeps: input hash, output hash (32 each), job id (16). */
const BYTES = 80;
/** Numbers a slot keeps: input size and mtime, output size and mtime, duration. */
const NUMS = 5;
/** Flags: which of the slot's hashes and job id are kept as bytes (else as a string in `odd`). */
const IH = 1;
const OH = 2;
const JOB = 4;
const NO_JOB = 8;
/** The input is its interned folder plus the output's name (else a slot of `inputs`). */
const SAME_NAME = 16;
/** The slot's stats changed since the manifest file was written (see `setStats`). */
const RESTATED = 32;

export class ManifestIndex {
  /** The outputs' paths; an output's slot here is its slot in every array below. */
  private readonly outputs = new PathTable();
  /** Inputs not named as their output. */
  private readonly inputs = new PathTable();
  /** Hashes and job ids (`BYTES` a slot). */
  private readonly bytes = new SlotPages(BYTES, (n) => Buffer.alloc(n));
  private readonly nums = new SlotPages(NUMS, (n) => new Float64Array(n));
  /** Per slot: the input (interned folder, or slot of `inputs`: see `SAME_NAME`), settings index, flags. */
  private readonly meta = new SlotPages(3, (n) => new Uint32Array(n));
  private readonly folders: string[] = [];
  private readonly folderIds = new Map<string, number>();
  private readonly settings: IndexSettings[] = [];
  private readonly settingsIds = new Map<IndexSettings, number>();
  /** Hashes and job ids not of the usual form, by slot and field. */
  private readonly odd = new Map<string, string>();
  /** Slots by the hash of their result; built when first asked (by in-place runs), then kept up to date. */
  private byResult: HashSlots | undefined;
  /** Slots by their result's size, built when first asked for (see {@link ManifestIndex.hasResultOfSize}). */
  private bySize: HashSlots | undefined;

  get size(): number {
    return this.outputs.size;
  }

  /** The recorded outputs, in the order first recorded. */
  keys(): IterableIterator<string> {
    return this.outputs.paths();
  }

  /** The folders (up to and with their last `/`; '' for the top) that recorded outputs are in. */
  outputFolders(): readonly string[] {
    return this.outputs.folderNames();
  }

  has(output: string): boolean {
    return this.outputs.has(output);
  }

  /** Record (or replace) the entry of `e.output`. */
  set(e: ManifestEntry, settings: IndexSettings): void {
    const slot = this.place(e.output, e.input, [e.inputSize, e.inputMtimeMs, e.outputSize, e.outputMtimeMs, e.durationMs], settings);
    let flags = 0;
    if (this.putHash(slot, 0, e.inputHash)) flags |= IH;
    if (this.putHash(slot, 32, e.outputHash)) flags |= OH;
    flags |= this.putJob(slot, e.jobId);
    this.addFlags(slot, flags);
    this.noteResult(slot, flags);
  }

  /**
   * New sizes and modification times of a recorded output's input and result, where their bytes were read and found
   * to be the recorded ones (see `Manifest.restat`). False when `output` is not recorded.
   */
  setStats(output: string, stats: RecordedStats): boolean {
    const slot = this.outputs.find(output);
    if (slot < 0) return false;
    const nums = this.nums.page(slot);
    const n = this.nums.offset(slot);
    if (stats.input) [nums[n], nums[n + 1]] = [stats.input.size, stats.input.mtimeMs];
    if (stats.output) [nums[n + 2], nums[n + 3]] = [stats.output.size, stats.output.mtimeMs];
    this.addFlags(slot, RESTATED);
    return true;
  }

  /** The outputs `setStats` changed since the last call (relative paths), their marks cleared: one flag a slot, no list kept meanwhile. */
  *takeRestated(): Generator<string> {
    for (let slot = 0; slot < this.outputs.size; slot++) if (this.unmarkRestated(slot)) yield this.outputs.pathOf(slot);
  }

  /** Clears every `setStats` mark (the manifest file was written whole). */
  clearRestated(): void {
    for (let slot = 0; slot < this.outputs.size; slot++) this.unmarkRestated(slot);
  }

  private unmarkRestated(slot: number): boolean {
    const meta = this.meta.page(slot);
    const m = this.meta.offset(slot) + 2;
    const marked = (meta[m]! & RESTATED) !== 0;
    meta[m] = meta[m]! & ~RESTATED;
    return marked;
  }

  /**
   * Record a version-2 `done` line as read: its hashes go from their base64url text straight to bytes
   * (a 100,000-line manifest is loaded on every rerun).
   */
  setLine(line: PackedLine, settings: IndexSettings): void {
    const slot = this.place(line.o, line.i, [line.is, line.im, line.os, line.om, line.d], settings);
    let flags = 0;
    if (this.putPacked(slot, 0, line.ih)) flags |= IH;
    if (this.putPacked(slot, 32, line.oh)) flags |= OH;
    flags |= this.putJob(slot, line.j);
    this.addFlags(slot, flags);
    this.noteResult(slot, flags);
  }

  /**
   * The output (relative path) whose recorded result is `hash` (`sha256:<hex>`) and differs from its input,
   * or undefined. A result the service returned unchanged (a container without its licence, blemish removal
   * finding no face) has its original's bytes: a file with them is that original as much as a copy of the
   * result, and is not named one. The first call indexes every slot (4–8 bytes each).
   */
  outputWithResult(hash: string): string | undefined {
    if (!hash.startsWith(SHA) || !HEX64.test(hash.slice(SHA.length))) return undefined;
    const wanted = Buffer.from(hash.slice(SHA.length), 'hex');
    this.byResult ??= new HashSlots((slot) => this.resultKey(slot), () => this.size);
    for (const slot of this.byResult.candidates(wanted.readUInt32LE(28))) {
      if (this.resultKey(slot) === undefined || !this.holds(slot, 32, wanted) || this.holds(slot, 0, wanted)) continue;
      return this.outputs.pathOf(slot);
    }
    return undefined;
  }

  /** Whether the slot's hash at `at` (0 input, 32 result), kept as bytes, is `wanted`. */
  private holds(slot: number, at: 0 | 32, wanted: Buffer): boolean {
    if (!(this.flagsOf(slot) & (at === 0 ? IH : OH))) return false;
    const from = this.bytes.offset(slot) + at;
    return wanted.equals(this.bytes.page(slot).subarray(from, from + 32));
  }

  /**
   * Whether a result of `size` bytes is recorded (and findable by {@link outputWithResult}): only a file of
   * that size can be a copy of one, so a folder's other files need no read to rule that out.
   */
  hasResultOfSize(size: number): boolean {
    this.bySize ??= new HashSlots((slot) => this.sizeKey(slot), () => this.size);
    for (const slot of this.bySize.candidates(sizeKey(size))) {
      if (this.sizeKey(slot) !== undefined && this.outputSizeOf(slot) === size) return true;
    }
    return false;
  }

  private outputSizeOf(slot: number): number {
    return this.nums.page(slot)[this.nums.offset(slot) + 2]!;
  }

  /** The lookup key of a slot's result size, when its result can be found by its hash. */
  private sizeKey(slot: number): number | undefined {
    return this.flagsOf(slot) & OH ? sizeKey(this.outputSizeOf(slot)) : undefined;
  }

  /** The lookup key of a slot's result hash (its last four bytes), when it is kept as bytes. */
  private resultKey(slot: number): number | undefined {
    if (!(this.flagsOf(slot) & OH)) return undefined;
    return this.bytes.page(slot).readUInt32LE(this.bytes.offset(slot) + 32 + 28);
  }

  private noteResult(slot: number, flags: number): void {
    if (!(flags & OH)) return;
    this.byResult?.add(this.resultKey(slot)!, slot);
    this.bySize?.add(this.sizeKey(slot)!, slot);
  }

  /** The slot of `output` (a new one at the end), with its numbers, input and settings set (its flags cleared but `SAME_NAME`). */
  private place(output: string, input: string, numbers: readonly number[], settings: IndexSettings): number {
    const slot = this.outputs.add(output);
    this.nums.page(slot).set(numbers, this.nums.offset(slot));
    const cut = input.lastIndexOf('/');
    const outputName = output.slice(output.lastIndexOf('/') + 1);
    const same = input.length - cut - 1 === outputName.length && input.endsWith(outputName);
    const meta = this.meta.page(slot);
    const m = this.meta.offset(slot);
    meta[m] = same ? this.intern(input.slice(0, cut + 1)) : this.inputs.add(input);
    meta[m + 1] = this.settingsId(settings);
    meta[m + 2] = same ? SAME_NAME : 0;
    return slot;
  }

  private putJob(slot: number, jobId: string | undefined): number {
    this.odd.delete(`${slot}j`);
    if (jobId === undefined) return NO_JOB;
    // A UUID's five groups of hex digits, written one after the other (no regular expression, no joined copy).
    const b = this.bytes.page(slot);
    const at = this.bytes.offset(slot) + 64;
    if (isUuidShape(jobId) && b.write(jobId.slice(0, 8), at, 4, 'hex') === 4 && b.write(jobId.slice(9, 13), at + 4, 2, 'hex') === 2
      && b.write(jobId.slice(14, 18), at + 6, 2, 'hex') === 2 && b.write(jobId.slice(19, 23), at + 8, 2, 'hex') === 2 && b.write(jobId.slice(24), at + 10, 6, 'hex') === 6
      && uuidAt(b, at) === jobId) return JOB;
    this.odd.set(`${slot}j`, jobId);
    return 0;
  }

  /** The entry of an output (relative path), or undefined. */
  get(output: string): ManifestEntry | undefined {
    const slot = this.outputs.find(output);
    return slot < 0 ? undefined : this.entryAt(output, slot);
  }

  /** The output hash recorded for `output`, or undefined. */
  outputHashOf(output: string): string | undefined {
    const slot = this.outputs.find(output);
    return slot < 0 ? undefined : this.hash(slot, 32, OH, 'o');
  }

  /** Every entry, in the order outputs were first recorded. */
  *values(): Generator<ManifestEntry> {
    for (let slot = 0; slot < this.outputs.size; slot++) yield this.entryAt(this.outputs.pathOf(slot), slot);
  }

  private entryAt(output: string, slot: number): ManifestEntry {
    const nums = this.nums.page(slot);
    const n = this.nums.offset(slot);
    const meta = this.meta.page(slot);
    const m = this.meta.offset(slot);
    const s = this.settings[meta[m + 1]!]!;
    const input = meta[m + 2]! & SAME_NAME
      ? this.folders[meta[m]!]! + output.slice(output.lastIndexOf('/') + 1)
      : this.inputs.pathOf(meta[m]!);
    return new SlotEntry(this, slot, output, input, s, nums[n]!, nums[n + 1]!, nums[n + 2]!, nums[n + 3]!, nums[n + 4]!);
  }

  /** The input hash (`field` 'i') or output hash ('o') of a slot. */
  hashOf(slot: number, field: 'i' | 'o'): string {
    return field === 'i' ? this.hash(slot, 0, IH, 'i') : this.hash(slot, 32, OH, 'o');
  }

  /** The job id of a slot, if it has one. */
  jobOf(slot: number): string | undefined {
    const flags = this.flagsOf(slot);
    if (flags & NO_JOB) return undefined;
    return flags & JOB ? uuidAt(this.bytes.page(slot), this.bytes.offset(slot) + 64) : this.odd.get(`${slot}j`);
  }

  private addFlags(slot: number, flags: number): void {
    const meta = this.meta.page(slot);
    const m = this.meta.offset(slot) + 2;
    meta[m] = meta[m]! | flags;
  }

  private flagsOf(slot: number): number {
    return this.meta.page(slot)[this.meta.offset(slot) + 2]!;
  }

  /** Keep a `sha256:<hex>` hash as bytes (true), any other form as it is (false). */
  private putHash(slot: number, at: number, hash: string): boolean {
    const field = `${slot}${at === 0 ? 'i' : 'o'}`;
    this.odd.delete(field);
    if (hash.startsWith(SHA) && HEX64.test(hash.slice(SHA.length))) {
      this.bytes.page(slot).write(hash.slice(SHA.length), this.bytes.offset(slot) + at, 32, 'hex');
      return true;
    }
    this.odd.set(field, hash);
    return false;
  }

  /** As `putHash`, from the manifest line's packed form (see `packHash`). */
  private putPacked(slot: number, at: number, packed: string): boolean {
    if (packed.length !== 43 || packed.startsWith('=')) return this.putHash(slot, at, unpackHash(packed));
    this.odd.delete(`${slot}${at === 0 ? 'i' : 'o'}`);
    return this.bytes.page(slot).write(packed, this.bytes.offset(slot) + at, 32, 'base64url') === 32 || this.putHash(slot, at, unpackHash(packed));
  }

  private hash(slot: number, at: number, flag: number, field: string): string {
    if (!(this.flagsOf(slot) & flag)) return this.odd.get(`${slot}${field}`)!;
    const start = this.bytes.offset(slot) + at;
    return `${SHA}${this.bytes.page(slot).toString('hex', start, start + 32)}`;
  }

  private intern(folder: string): number {
    return idOf(folder, this.folders, this.folderIds);
  }

  private settingsId(s: IndexSettings): number {
    return idOf(s, this.settings, this.settingsIds);
  }

  /** Make room in the lookup table for `slots` outputs at once (a manifest about to be read). */
  reserve(slots: number): void {
    this.outputs.reserve(slots);
  }
}

/** The job id kept as 16 bytes at `at`, in a UUID's text form. */
function uuidAt(b: Buffer, at: number): string {
  const h = b.toString('hex', at, at + 16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}



/**
 * An entry as `get` gives it: the numbers and paths at hand, the hashes and job
 * id read from the index when asked (a rerun's decision reads the input hash
 * only). The hashes are getters: copy an entry field by field, not by spreading.
 * It reads the slot as it is now, so it is taken fresh for each decision.
 */
class SlotEntry implements ManifestEntry {
  readonly settingsKey: string;
  readonly params: PfcParams;
  readonly backend: string;
  // JavaScript's own private fields: not copied by a spread, not compared by a deep equality.
  readonly #index: ManifestIndex;
  readonly #slot: number;
  constructor(
    index: ManifestIndex,
    slot: number,
    readonly output: string,
    readonly input: string,
    settings: IndexSettings,
    readonly inputSize: number,
    readonly inputMtimeMs: number,
    readonly outputSize: number,
    readonly outputMtimeMs: number,
    readonly durationMs: number,
  ) {
    this.#index = index;
    this.#slot = slot;
    this.settingsKey = settings.key;
    this.params = settings.params;
    this.backend = settings.backend;
  }

  get inputHash(): string {
    return this.#index.hashOf(this.#slot, 'i');
  }

  get outputHash(): string {
    return this.#index.hashOf(this.#slot, 'o');
  }

  get jobId(): string | undefined {
    return this.#index.jobOf(this.#slot);
  }
}

/** The number of `value` in `list`, adding it (and its number to `ids`) the first time it is seen. */
function idOf<T>(value: T, list: T[], ids: Map<T, number>): number {
  let id = ids.get(value);
  if (id === undefined) {
    id = list.length;
    list.push(value);
    ids.set(value, id);
  }
  return id;
}
