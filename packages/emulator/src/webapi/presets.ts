/**
 * Custom presets, one list per API key (an account, as on the hosted
 * service). Names are unique per key because `/pfc` selects a preset by name.
 */
import { randomUUID } from 'node:crypto';
import { BUILT_IN_PRESETS, type PresetRecord } from '@pfc/core';
import { HttpError } from '../http/respond';
import type { ReceivedFile } from '../storage';

export interface PresetEntry {
  presetId: string;
  name: string;
  description: string;
  /** SHA-256 of the API key that created it (the key itself is never stored). */
  owner: string;
  createdAt: number;
  file?: ReceivedFile & { path: string; uploadedAt: number };
}

/** Names `/pfc` gives another meaning; a custom preset may not take them. */
const RESERVED = new Set([...BUILT_IN_PRESETS, 'none'].map((n) => n.toLowerCase()));

export const PRESET_NAME_MAX = 200;
export const PRESET_DESCRIPTION_MAX = 2000;

export class PresetStore {
  private readonly entries = new Map<string, PresetEntry>();

  constructor(private readonly now: () => number) {}

  /** Checks the JSON body of `POST /presets/` and creates the entry. */
  create(owner: string, body: unknown): PresetEntry {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpError(400, 'body must be a JSON object {"name", "description"}');
    const { name, description } = body as Record<string, unknown>;
    if (typeof name !== 'string' || name.trim() === '' || name.length > PRESET_NAME_MAX) {
      throw new HttpError(400, `name must be a non-empty string of at most ${PRESET_NAME_MAX} characters`);
    }
    // Required (the document does not say whether it is; stricter): the create request "sends" it.
    if (typeof description !== 'string' || description.length > PRESET_DESCRIPTION_MAX) {
      throw new HttpError(400, `description is required: a string of at most ${PRESET_DESCRIPTION_MAX} characters (may be empty)`);
    }
    if (RESERVED.has(name.toLowerCase())) throw new HttpError(400, `name "${name}" is reserved for a built-in preset; choose another name`);
    if (this.byName(owner, name)) throw new HttpError(409, `a preset named "${name}" already exists`);
    const entry: PresetEntry = { presetId: randomUUID(), name, description, owner, createdAt: this.now() };
    this.entries.set(entry.presetId, entry);
    return entry;
  }

  /** The key's presets in creation order. */
  list(owner: string, limit: number, offset: number): PresetEntry[] {
    return [...this.entries.values()].filter((e) => e.owner === owner).slice(offset, offset + limit);
  }

  get(owner: string, presetId: string): PresetEntry | undefined {
    const e = this.entries.get(presetId.toLowerCase());
    return e && e.owner === owner ? e : undefined;
  }

  /** For the signed PUT, which carries no key. */
  getById(presetId: string): PresetEntry | undefined {
    return this.entries.get(presetId.toLowerCase());
  }

  byName(owner: string, name: string): PresetEntry | undefined {
    for (const e of this.entries.values()) if (e.owner === owner && e.name === name) return e;
    return undefined;
  }

  delete(entry: PresetEntry): void {
    this.entries.delete(entry.presetId);
  }
}

/** The wire form of a preset. `uri` (with the key) downloads the file once uploaded. */
export function presetRecord(e: PresetEntry, web: string): PresetRecord {
  return {
    presetId: e.presetId,
    name: e.name,
    description: e.description,
    createdAt: new Date(e.createdAt).toISOString(),
    uploaded: e.file !== undefined,
    ...(e.file ? { size: e.file.size, uri: `${web}/presets/${e.presetId}/file` } : {}),
  };
}
